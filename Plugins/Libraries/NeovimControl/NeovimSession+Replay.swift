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
    public func replay(into client: NeovimClient) throws(NeovimError) -> [String] {
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
            _ = try? client.call("nvim_buf_set_option", [buffer, "buflisted", true])
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
            for _ in 0 ..< 2 {
                for (window, handle, _) in placed {
                    _ = try? client.call("nvim_win_set_width", [handle, .int(Int64(window.width))])
                    _ = try? client.call("nvim_win_set_height", [handle, .int(Int64(window.height))])
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
