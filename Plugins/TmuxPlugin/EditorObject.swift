import Foundation
import NeovimControl
import RestorationKit
import TmuxControl

/// The state of the Neovim a pane showed, asked from it over its RPC
/// socket at the save (``NeovimSession``) and stored as typed values: its
/// directory, listed files, tab pages with their splits, files, cursors and
/// sizes, and which tab and windows were current.
///
/// At a restore the pane's ``ProgramObject`` has typed `nvim` again; once
/// every pane exists and has its size, the plugin waits for that Neovim's
/// socket and replays the session into it (``TmuxPlugin/replayEditors()``).
/// Nothing in the archive is run: names are API arguments, and only plain
/// absolute paths are opened (R16; ``NeovimSession``).
final class EditorObject: RestorableObject, RestorationClass {
    var restorationIdentifier: String? = "nvim"
    var restorationClass: (any RestorationClass.Type)? = EditorObject.self
    let session: NeovimSession

    init(session: NeovimSession) {
        self.session = session
    }

    /// Asks the Neovim `program` (a pane's foreground nvim) for its state,
    /// all of it answered before `deadline`; nil, with the reason in
    /// `problem`, when it does not answer in time.
    static func read(from program: ForegroundProgram, before deadline: ContinuousClock.Instant, problem: inout String?) -> EditorObject? {
        let sockets = NeovimServer.sockets(ofProcess: program.pid)
        guard !sockets.isEmpty else {
            problem = "nvim \(program.pid) listens on no socket"
            return nil
        }
        for socket in sockets {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { break }
            do {
                let client = try NeovimClient(socket: socket, timeout: left)
                client.deadline = deadline
                return EditorObject(session: try NeovimSession.read(from: client))
            } catch {
                problem = "nvim \(program.pid) at \(socket): \(error)"
            }
        }
        return nil
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(session.directory, forKey: "directory")
        try coder.encode(session.buffers, forKey: "buffers")
        try coder.encode(session.currentTab, forKey: "current-tab")
        try coder.encode(StateValue.array(session.tabs.map { tab in
            .dictionary(["current-window": .int64(Int64(tab.currentWindow)), "layout": Self.value(of: tab.layout)])
        }), forKey: "tabs")
    }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? TmuxPlugin, path.components.count == 6, let program = path.parent, let pane = program.parent,
              plugin.restore.programs.contains(program), let target = plugin.restore.panes[pane]
        else { return nil }
        let session: NeovimSession
        do {
            session = try decodeSession(coder)
        } catch {
            plugin.context.log("\(path): the saved Neovim state cannot be read (\(error)); nvim starts as it was typed", level: .warning)
            return nil
        }
        plugin.restore.editorWaits(TmuxRestore.PendingEditor(runner: target.runner, target: target.target, session: session, path: path.description))
        return EditorObject(session: session)
    }

    /// The session stored by ``encodeRestorableState(with:)``.
    private static func decodeSession(_ coder: StateCoder) throws -> NeovimSession {
        guard let directory = try coder.decode(String.self, forKey: "directory"),
              let buffers = try coder.decode([String].self, forKey: "buffers"),
              let currentTab = try coder.decode(Int.self, forKey: "current-tab"),
              case .array(let values)? = try coder.decodeValue(forKey: "tabs")
        else { throw TmuxError.invalidState("a key is missing") }
        var tabs: [NeovimSession.Tab] = []
        for value in values {
            guard case .dictionary(let tab) = value, let current = tab["current-window"].flatMap(Int.init(stateValue:)),
                  let layout = tab["layout"].flatMap(layout(from:))
            else { throw TmuxError.invalidState("tab \(tabs.count + 1) is no tab: \(value)") }
            tabs.append(NeovimSession.Tab(layout: layout, currentWindow: current))
        }
        return NeovimSession(directory: directory, buffers: buffers, tabs: tabs, currentTab: currentTab)
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
