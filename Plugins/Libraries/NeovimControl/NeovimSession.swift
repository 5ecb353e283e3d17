import MessagePack

/// What a Neovim shows, as its user would want it back: its working
/// directory, its listed file buffers, and its tab pages with their window
/// splits, each window's file, cursor and size, and which tab and windows
/// are current.
///
/// Read over Neovim's RPC API and replayed the same way: every file name
/// and directory travels as an API argument (`bufadd()`,
/// `nvim_set_current_dir`, `nvim_win_set_buf`), never inside command text,
/// so nothing saved is ever parsed as an Ex command or run as a script.
/// Only absolute paths count as files (``isPlainPath(_:)``): a buffer named
/// `term://...`, `scp://...` or `man://...` is opened by Neovim's own
/// handlers, which start programs, so such names are neither saved nor
/// replayed.
/// Unsaved changes are not kept: they are in Neovim's swap files, and
/// Neovim offers them when the file is opened again.
public struct NeovimSession: Hashable, Sendable {
    /// One window: the file it shows (nil for any other buffer: help,
    /// terminals, scratch), its cursor (line from 1, byte column from 0)
    /// and its size in cells.
    public struct Window: Hashable, Sendable {
        /// The file's absolute path, or nil for a buffer that is no file.
        public var file: String?
        /// The cursor's line, from 1.
        public var line: Int
        /// The cursor's byte column, from 0.
        public var column: Int
        /// Width in cells.
        public var width: Int
        /// Height in lines.
        public var height: Int

        /// A window.
        public init(file: String?, line: Int, column: Int, width: Int, height: Int) {
            self.file = file
            self.line = line
            self.column = column
            self.width = width
            self.height = height
        }
    }

    /// How a tab page's windows are split, as `winlayout()` says.
    public indirect enum Layout: Hashable, Sendable {
        /// One window.
        case window(Window)
        /// Side by side, left to right (`:vsplit`).
        case row([Layout])
        /// Stacked, top to bottom (`:split`).
        case column([Layout])

        /// Its windows, left to right and top to bottom.
        public var windows: [Window] {
            switch self {
            case .window(let window): return [window]
            case .row(let parts), .column(let parts): return parts.flatMap(\.windows)
            }
        }
    }

    /// One tab page.
    public struct Tab: Hashable, Sendable {
        /// Its windows.
        public var layout: Layout
        /// Which of ``Layout/windows`` is current.
        public var currentWindow: Int

        /// A tab page.
        public init(layout: Layout, currentWindow: Int) {
            self.layout = layout
            self.currentWindow = currentWindow
        }
    }

    /// The global working directory.
    public var directory: String
    /// The listed buffers that are files, in buffer order.
    public var buffers: [String]
    /// The tab pages, in order.
    public var tabs: [Tab]
    /// Which tab page is current.
    public var currentTab: Int

    /// A session.
    public init(directory: String, buffers: [String], tabs: [Tab], currentTab: Int) {
        self.directory = directory
        self.buffers = buffers
        self.tabs = tabs
        self.currentTab = currentTab
    }
}

extension NeovimSession {
    /// Whether `name` is a plain absolute path: it starts with `/` and
    /// names no URL scheme (`://`), so opening it reads a file and starts
    /// no handler.
    public static func isPlainPath(_ name: String) -> Bool {
        // Names travel as API arguments: a newline or a quote in one is
        // inert, so only a handler's `scheme://` is refused.
        name.hasPrefix("/") && !name.contains("://")
    }

    /// Reads what the Neovim behind `client` shows, in three round trips
    /// after one that asks whether it waits for its user (a prompt, a
    /// "Press ENTER"): such a Neovim answers nothing else until the user
    /// does, so it is an error at once rather than a timeout.
    public static func read(from client: NeovimClient) throws(NeovimError) -> NeovimSession {
        if try client.call("nvim_get_mode")["blocking"]?.boolValue == true {
            throw .waitsForUser
        }
        let first = try client.callAtomic([
            ("nvim_call_function", ["getcwd", [-1]]),
            ("nvim_list_tabpages", []),
            ("nvim_get_current_tabpage", []),
            ("nvim_list_bufs", []),
        ])
        guard let directory = first[0].stringValue, let tabHandles = first[1].arrayValue, let buffers = first[3].arrayValue else {
            throw .unexpectedShape("Neovim's tab pages and buffers have an unexpected shape")
        }
        let currentTab = tabHandles.firstIndex(of: first[2]) ?? 0

        var second: [(method: String, arguments: [MessagePackValue])] = []
        for (index, tab) in tabHandles.enumerated() {
            second.append(("nvim_call_function", ["winlayout", [.int(Int64(index + 1))]]))
            second.append(("nvim_tabpage_get_win", [tab]))
        }
        for buffer in buffers {
            // getbufvar() answers on every Neovim; nvim_buf_get_option is
            // deprecated since 0.10, and nvim_get_option_value takes a
            // buffer only from 0.8 (Debian 12 has 0.7.2).
            second += [
                ("nvim_buf_get_name", [buffer]), ("nvim_call_function", ["getbufvar", [buffer, "&buftype"]]),
                ("nvim_call_function", ["getbufvar", [buffer, "&buflisted"]]),
            ]
        }
        let answers = try client.callAtomic(second)
        var layouts: [(tree: MessagePackValue, current: Int?)] = []
        for index in tabHandles.indices {
            layouts.append((answers[2 * index], answers[2 * index + 1].intValue))
        }
        // Buffers by handle: their file name when they are files.
        var files: [Int: String] = [:]
        var listed: [String] = []
        for (index, buffer) in buffers.enumerated() {
            let base = 2 * tabHandles.count + 3 * index
            guard let handle = buffer.intValue, let name = answers[base].stringValue, isPlainPath(name),
                  answers[base + 1].stringValue == "" else { continue }
            files[handle] = name
            if answers[base + 2].intValue == 1 || answers[base + 2].boolValue == true { listed.append(name) }
        }

        var windowIDs: [Int] = []
        for layout in layouts { try collectWindowIDs(layout.tree, into: &windowIDs) }
        var third: [(method: String, arguments: [MessagePackValue])] = []
        for id in windowIDs {
            let window = MessagePackValue.int(Int64(id))
            third += [("nvim_win_get_buf", [window]), ("nvim_win_get_cursor", [window]), ("nvim_win_get_width", [window]), ("nvim_win_get_height", [window])]
        }
        let details = try client.callAtomic(third)
        var windows: [Int: Window] = [:]
        for (index, id) in windowIDs.enumerated() {
            let cursor = details[4 * index + 1].arrayValue ?? []
            windows[id] = Window(
                file: details[4 * index].intValue.flatMap { files[$0] },
                line: cursor.first?.intValue ?? 1, column: cursor.last?.intValue ?? 0,
                width: details[4 * index + 2].intValue ?? 0, height: details[4 * index + 3].intValue ?? 0)
        }
        let tabs = try layouts.map { (tree, current) throws(NeovimError) -> Tab in
            var ids: [Int] = []
            try collectWindowIDs(tree, into: &ids)
            return Tab(layout: try layout(tree, windows: windows), currentWindow: current.flatMap(ids.firstIndex(of:)) ?? 0)
        }
        return NeovimSession(directory: directory, buffers: listed, tabs: tabs, currentTab: currentTab)
    }

    /// The window ids of a `winlayout()` tree, in order.
    private static func collectWindowIDs(_ tree: MessagePackValue, into ids: inout [Int]) throws(NeovimError) {
        guard let node = tree.arrayValue, node.count == 2, let kind = node[0].stringValue else {
            throw .unexpectedShape("winlayout() answered an unexpected shape")
        }
        switch kind {
        case "leaf":
            guard let id = node[1].intValue else { throw .unexpectedShape("winlayout() named no window") }
            ids.append(id)
        case "row", "col":
            for child in node[1].arrayValue ?? [] { try collectWindowIDs(child, into: &ids) }
        default:
            throw .unexpectedShape("winlayout() answered an unknown kind \(kind)")
        }
    }

    private static func layout(_ tree: MessagePackValue, windows: [Int: Window]) throws(NeovimError) -> Layout {
        guard let node = tree.arrayValue, node.count == 2, let kind = node[0].stringValue else {
            throw .unexpectedShape("winlayout() answered an unexpected shape")
        }
        if kind == "leaf" {
            guard let id = node[1].intValue, let window = windows[id] else { throw .unexpectedShape("winlayout() named an unknown window") }
            return .window(window)
        }
        let parts = try (node[1].arrayValue ?? []).map { (child) throws(NeovimError) in try layout(child, windows: windows) }
        return kind == "row" ? .row(parts) : .column(parts)
    }
}
