public import NeovimControl
public import RestorationKit

/// Why saved Neovim state cannot be read back.
public enum NeovimStateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A field the state must have is missing or of another type.
    case missing(String)
    /// A tab that is no tab.
    case badTab(Int)

    /// One line.
    public var description: String {
        switch self {
        case .missing(let key): "its \(key) is missing"
        case .badTab(let number): "tab \(number) is no tab"
        }
    }
}

extension NeovimSession {
    /// The keys of ``stateFields``: the tmux plugin stores each as a key of
    /// its editor object, the session plugin as one dictionary.
    public static let stateKeys = ["directory", "buffers", "current-tab", "tabs"]

    /// The session as typed values: its directory, listed files, current
    /// tab and tabs (each a layout of splits and windows with their file,
    /// cursor and size).
    public var stateFields: [String: StateValue] {
        [
            "directory": .string(directory),
            "buffers": .array(buffers.map { .string($0) }),
            "current-tab": .int64(Int64(currentTab)),
            "tabs": .array(tabs.map { tab in
                .dictionary(["current-window": .int64(Int64(tab.currentWindow)), "layout": Self.value(of: tab.layout)])
            }),
        ]
    }

    /// A session as ``stateFields`` stored it (untrusted: replaying it
    /// checks every name again).
    public init(stateFields fields: [String: StateValue]) throws(NeovimStateError) {
        guard case .string(let directory)? = fields["directory"] else { throw .missing("directory") }
        guard case .array(let bufferValues)? = fields["buffers"] else { throw .missing("buffers") }
        let buffers = bufferValues.compactMap(String.init(stateValue:))
        guard buffers.count == bufferValues.count else { throw .missing("buffers") }
        guard let currentTab = fields["current-tab"].flatMap(Int.init(stateValue:)) else { throw .missing("current-tab") }
        guard case .array(let values)? = fields["tabs"] else { throw .missing("tabs") }
        var tabs: [NeovimSession.Tab] = []
        for value in values {
            guard case .dictionary(let tab) = value, let current = tab["current-window"].flatMap(Int.init(stateValue:)),
                  let layout = tab["layout"].flatMap(Self.layout(from:))
            else { throw .badTab(tabs.count + 1) }
            tabs.append(NeovimSession.Tab(layout: layout, currentWindow: current))
        }
        self.init(directory: directory, buffers: buffers, tabs: tabs, currentTab: currentTab)
    }

    /// A layout as typed values: a window is a dictionary of its file,
    /// cursor and size; a split is `{"split": "row" or "column", "parts": [...]}`.
    private static func value(of layout: NeovimSession.Layout) -> StateValue {
        switch layout {
        case .window(let window):
            var fields: [String: StateValue] = [
                "line": .int64(Int64(window.line)), "column": .int64(Int64(window.column)),
                "width": .int64(Int64(window.width)), "height": .int64(Int64(window.height)),
            ]
            if let file = window.file { fields["file"] = .string(file) }
            return .dictionary(fields)
        case .row(let parts): return .dictionary(["split": .string("row"), "parts": .array(parts.map(value(of:)))])
        case .column(let parts): return .dictionary(["split": .string("column"), "parts": .array(parts.map(value(of:)))])
        }
    }

    private static func layout(from value: StateValue) -> NeovimSession.Layout? {
        guard case .dictionary(let fields) = value else { return nil }
        if let split = fields["split"] {
            guard case .array(let values)? = fields["parts"] else { return nil }
            let layouts = values.compactMap(layout(from:))
            guard layouts.count == values.count, !layouts.isEmpty else { return nil }
            switch split {
            case .string("row"): return .row(layouts)
            case .string("column"): return .column(layouts)
            default: return nil
            }
        }
        let number = { (key: String) in fields[key].flatMap(Int.init(stateValue:)) }
        guard let line = number("line"), let column = number("column"), let width = number("width"), let height = number("height") else { return nil }
        let file = fields["file"].flatMap(String.init(stateValue:))
        return .window(NeovimSession.Window(file: file, line: line, column: column, width: width, height: height))
    }
}
