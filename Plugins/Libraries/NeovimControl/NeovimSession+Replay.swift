import MessagePack

extension NeovimSession {
    /// Rebuilds this session in the (freshly started) Neovim behind
    /// `client`, and returns what could not be done, one line each: a
    /// directory or file that is gone, a split there is no room for.
    ///
    /// Only constant commands are run as Ex commands (`silent! tabonly!`,
    /// `silent! only!`, `tabnew`, `rightbelow vsplit`, `rightbelow split`);
    /// every saved name is an API argument, and only plain absolute paths
    /// are opened (``isPlainPath(_:)``).
    /// Cursors are kept within the file as it is now. When opening a file
    /// makes Neovim stop for its user (a swap file), the replay stops
    /// there with an error: the user's answer comes first.
    ///
    /// `sizing` says what the windows' saved sizes mean: cells (a tmux
    /// pane gets its saved size back, so its Neovim has the room it had),
    /// or shares of the editor's room, for a terminal window whose size is
    /// its window manager's and may differ from the saved one.
    public func replay(into client: NeovimClient, sizing: Sizing = .cells) throws(NeovimError) -> [String] {
        var problems: [String] = []
        if !Self.isPlainPath(directory) {
            problems.append("\(directory) is no absolute path: the directory is not changed")
        } else if directory.contains("$") {
            // nvim_set_current_dir expands environment variables in its
            // argument (as :cd does), with no way to escape them.
            problems.append("\(directory) holds a $, which Neovim would read as a variable: the directory is not changed")
        } else {
            do {
                _ = try client.call("nvim_set_current_dir", [.string(directory)])
            } catch {
                problems.append("cannot change to \(directory): \(error)")
            }
        }
        _ = try client.call("nvim_command", ["silent! tabonly!"])
        _ = try client.call("nvim_command", ["silent! only!"])
        for file in buffers where Self.isPlainPath(file) {
            guard let buffer = try? client.call("nvim_call_function", ["bufadd", [.string(file)]]) else { continue }
            _ = try? client.call("nvim_call_function", ["setbufvar", [buffer, "&buflisted", 1]])
        }
        // Every tab page first: the tab line they bring takes its row
        // before any window is sized.
        for _ in tabs.dropFirst() { _ = try client.call("nvim_command", ["tabnew"]) }
        let tabHandles = try client.call("nvim_list_tabpages").arrayValue ?? []
        for (tab, tabHandle) in zip(tabs, tabHandles) {
            _ = try client.call("nvim_set_current_tabpage", [tabHandle])
            var placed: [(window: Window, handle: MessagePackValue, position: Int)] = []
            var position = 0
            try build(tab.layout, in: try client.call("nvim_get_current_win"), client: client, placed: &placed, position: &position, problems: &problems)
            for (window, handle, _) in placed {
                try show(window, in: handle, client: client, problems: &problems)
            }
            // Sizes last, twice: a window's size bounds its neighbours'.
            let (columns, lines) = sizing == .cells ? (1.0, 1.0) : try scale(of: tab.layout, client: client)
            for _ in 0 ..< 2 {
                for (window, handle, _) in placed {
                    _ = try? client.call("nvim_win_set_width", [handle, .int(Int64((Double(window.width) * columns).rounded()))])
                    _ = try? client.call("nvim_win_set_height", [handle, .int(Int64((Double(window.height) * lines).rounded()))])
                }
            }
            // The current window by its place in the saved layout: a split
            // that had no room leaves out windows before it.
            if let current = placed.first(where: { $0.position == tab.currentWindow }) {
                _ = try client.call("nvim_set_current_win", [current.handle])
            }
        }
        if tabHandles.indices.contains(currentTab) {
            _ = try client.call("nvim_set_current_tabpage", [tabHandles[currentTab]])
        }
        return problems
    }

    /// What the saved sizes of a tab's windows mean.
    public enum Sizing: Hashable, Sendable {
        /// Cells, as saved.
        case cells
        /// Shares of the room the editor has now.
        case shares
    }

    /// How much larger the editor's room is now than `layout`'s was, across
    /// and down: the current window area (`&columns`, and `&lines` less the
    /// command line, status and tab lines that the saved windows did not
    /// count either) over the saved layout's.
    private func scale(of layout: Layout, client: NeovimClient) throws(NeovimError) -> (Double, Double) {
        let (width, height) = Self.extent(of: layout)
        guard width > 0, height > 0 else { return (1, 1) }
        let columns = try client.call("nvim_eval", ["&columns"]).intValue ?? width
        // The windows' total height now: the first tab's room as Neovim lays it out.
        let windowsHeight = try client.call("nvim_eval", ["&lines - &cmdheight - (&laststatus > 0 ? 1 : 0) - (tabpagenr('$') > 1 || &showtabline == 2 ? 1 : 0)"]).intValue ?? height
        return (Double(columns) / Double(width), Double(windowsHeight) / Double(height))
    }

    /// The cells a layout covers, separators and status lines of its splits included.
    private static func extent(of layout: Layout) -> (width: Int, height: Int) {
        switch layout {
        case .window(let window): return (window.width, window.height)
        case .row(let parts):
            let sizes = parts.map(extent(of:))
            return (sizes.reduce(0) { $0 + $1.width } + parts.count - 1, sizes.map(\.height).max() ?? 0)
        case .column(let parts):
            let sizes = parts.map(extent(of:))
            return (sizes.map(\.width).max() ?? 0, sizes.reduce(0) { $0 + $1.height } + parts.count - 1)
        }
    }

    /// Splits `handle` as `layout` says and lists each window with its handle.
    /// `position` counts the layout's windows in order, made or not.
    private func build(
        _ layout: Layout, in handle: MessagePackValue, client: NeovimClient,
        placed: inout [(window: Window, handle: MessagePackValue, position: Int)], position: inout Int, problems: inout [String]
    ) throws(NeovimError) {
        let parts: [Layout]
        let split: MessagePackValue
        switch layout {
        case .window(let window):
            placed.append((window, handle, position))
            position += 1
            return
        case .row(let children): parts = children; split = "rightbelow vsplit"
        case .column(let children): parts = children; split = "rightbelow split"
        }
        var handles = [handle]
        for _ in parts.dropFirst() {
            _ = try client.call("nvim_set_current_win", [handles[handles.count - 1]])
            do {
                _ = try client.call("nvim_command", [split])
                handles.append(try client.call("nvim_get_current_win"))
            } catch {
                problems.append("no room for a split: \(error)")
                break
            }
        }
        for (index, part) in parts.enumerated() {
            if handles.indices.contains(index) {
                try build(part, in: handles[index], client: client, placed: &placed, position: &position, problems: &problems)
            } else {
                position += part.windows.count
            }
        }
    }

    /// Shows `window`'s file in `handle` with its cursor; a window that
    /// showed no file gets an empty scratch buffer.
    private func show(_ window: Window, in handle: MessagePackValue, client: NeovimClient, problems: inout [String]) throws(NeovimError) {
        guard let file = window.file, Self.isPlainPath(file) else {
            let scratch = try client.call("nvim_create_buf", [false, true])
            _ = try client.call("nvim_win_set_buf", [handle, scratch])
            return
        }
        let buffer = try client.call("nvim_call_function", ["bufadd", [.string(file)]])
        do {
            _ = try client.call("nvim_win_set_buf", [handle, buffer])
        } catch {
            problems.append("cannot open \(file): \(error)")
            return
        }
        // Opening it made Neovim stop for its user (a swap file: changes
        // never written, or another Neovim editing it): the user answers
        // first, and nothing more is done behind their back.
        if try client.call("nvim_get_mode")["blocking"]?.boolValue == true {
            throw .swapFilePrompt(file: file)
        }
        let lines = try client.call("nvim_buf_line_count", [buffer]).intValue ?? 1
        let line = min(max(window.line, 1), max(lines, 1))
        _ = try? client.call("nvim_win_set_cursor", [handle, [.int(Int64(line)), .int(Int64(max(window.column, 0)))]])
    }
}
