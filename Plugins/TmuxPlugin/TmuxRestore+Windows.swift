import RestorationKit
import TmuxControl

extension TmuxRestore {
    /// The most bytes of arguments one tmux call of ``makeWindows(warn:)``
    /// carries: the client sends a command in one message of at most 16 KiB
    /// (tmux's `MAX_IMSGSIZE`), arguments and header together.
    static let callBudget = 12_000

    /// Makes every window with its panes and arrangement: the windows of a
    /// session in as few tmux calls as their commands fit in
    /// (``callBudget``), where a call per window started a tmux client per
    /// window, most of a restore's time beside tmux's own work.
    ///
    /// tmux runs a call's commands in order and stops at the first that
    /// fails. Each window's commands end with a mark (the window option
    /// `@restored-made`), taken off again at the call's end: when a call
    /// fails, the session's windows are read back, and the first window of
    /// the call without its mark is the one it stopped in. The windows
    /// before it are complete and left alone; that window is said to be not
    /// all as it was and arranged as far as it goes (made alone when it is
    /// not there at all); the windows after it, untouched by the call, are
    /// made alone. So one window that cannot be made whole costs only itself.
    mutating func makeWindows(warn: (String) -> Void) {
        var sessions: [RestorationPath] = []
        var windowsOfSession: [RestorationPath: [RestorationPath]] = [:]
        for path in windowOrder {
            guard let session = path.parent else { continue }
            if windowsOfSession[session] == nil { sessions.append(session) }
            windowsOfSession[session, default: []].append(path)
        }
        for session in sessions {
            // By index: the window tmux made with the session comes first.
            let paths = (windowsOfSession[session] ?? []).sorted { (windows[$0]?.index ?? 0) < (windows[$1]?.index ?? 0) }
            let calls = Self.batches(of: paths) { path in
                windows[path].map { $0.allCommands + [Self.mark($0.target), Self.unmark($0.target)] } ?? []
            }
            // The session's own last commands end its last call.
            let finishing = finishingCommands.removeValue(forKey: session)?.commands ?? []
            for (number, batch) in calls.enumerated() {
                makeWindows(batch, finishing: number == calls.count - 1 ? finishing : [], warn: warn)
            }
        }
        // Sessions none of whose windows is made here finish alone.
        sessionCommands += finishingCommands.values
        finishingCommands = [:]
    }

    /// `paths` in runs whose commands fit in one call: a window's commands
    /// are never split (one bigger than the budget goes alone).
    static func batches(of paths: [RestorationPath], commands: (RestorationPath) -> [[String]]) -> [[RestorationPath]] {
        var batches: [[RestorationPath]] = []
        var current: [RestorationPath] = []
        var size = 0
        for path in paths {
            // Each argument with its separator; a `;` between commands.
            let cost = commands(path).reduce(0) { $0 + $1.reduce(2) { $0 + $1.utf8.count + 1 } }
            if !current.isEmpty && size + cost > callBudget {
                batches.append(current)
                current = []
                size = 0
            }
            current.append(path)
            size += cost
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }

    /// The window option that marks a window of a call as complete.
    private static let markOption = "@restored-made"

    /// The command that marks the window `target` as complete.
    private static func mark(_ target: String) -> [String] {
        ["set-window-option", "-t", target, markOption, "1"]
    }

    /// The command that takes the mark off the window `target`.
    private static func unmark(_ target: String) -> [String] {
        ["set-window-option", "-u", "-t", target, markOption]
    }

    /// Makes the windows at `paths`, of one session, in one tmux call, then
    /// runs `finishing` (the session's last commands); when the call fails,
    /// finds where it stopped (see ``makeWindows(warn:)``).
    private mutating func makeWindows(_ paths: [RestorationPath], finishing: [[String]], warn: (String) -> Void) {
        let batch = paths.compactMap { path in windows[path].map { (path, $0) } }
        guard let runner = batch.first?.1.runner else { return }
        let failure: TmuxError
        do {
            let making = batch.flatMap { $0.1.allCommands + [Self.mark($0.1.target)] }
            _ = try runner.run(commands: making + finishing + batch.map { Self.unmark($0.1.target) })
            return
        } catch {
            failure = error
        }
        let session = Self.session(of: batch[0].1.target)
        guard let found = Self.windows(of: session, on: runner) else {
            // Nothing is known of what the call made: nothing is made again,
            // and no pane's saved text is left behind.
            warn("\(session): the windows may not all be as they were: a tmux call failed (\(failure)) and the windows could not be read back")
            for (path, _) in batch { windowFailed(at: path) }
            return
        }
        // The marks of the complete windows come off again.
        let marked = batch.filter { found[$0.1.index] == true }
        if !marked.isEmpty { _ = try? runner.run(commands: marked.map { Self.unmark($0.1.target) }) }
        var stopped = false
        defer {
            if stopped {
                // The call stopped before the session's last commands.
                if !finishing.isEmpty { _ = try? runner.run(commands: finishing) }
            } else if !finishing.isEmpty {
                // Every window is whole: it stopped in the last commands,
                // which are not run twice (a window is killed by index).
                warn("\(session): its active and last windows may not be as they were: \(failure)")
            }
        }
        for (path, window) in batch {
            if stopped {
                makeAlone(window, at: path, warn: warn)
            } else if found[window.index] == true {
                continue
            } else if found[window.index] == nil {
                // The call stopped at its making: once more, alone.
                stopped = true
                makeAlone(window, at: path, warn: warn)
            } else {
                // Made in part, or arranged in part: as far as it goes.
                stopped = true
                windowNotWhole(window, at: path, failure, warn: warn)
            }
        }
    }

    /// Makes one window in a call of its own; when that fails, it is
    /// arranged as far as it can be, and only what failed is missing.
    private mutating func makeAlone(_ window: Window, at path: RestorationPath, warn: (String) -> Void) {
        do {
            _ = try window.runner.run(commands: window.allCommands)
        } catch {
            windowNotWhole(window, at: path, error, warn: warn)
        }
    }

    /// Says that `window` is not all as it was, keeps its panes' files from
    /// being left behind, and arranges it again, the least arrangement when
    /// its own fails (a layout that no longer fits); then zooms it when it
    /// was zoomed and is not (arranging unzooms it; a zoom toggles).
    private mutating func windowNotWhole(_ window: Window, at path: RestorationPath, _ error: TmuxError, warn: (String) -> Void) {
        warn("\(window.target): the window is not all as it was: \(error)")
        windowFailed(at: path)
        // (No commands at all would be a bare `tmux`: a new session.)
        if !window.arranging.isEmpty, (try? window.runner.run(commands: window.arranging)) == nil, !window.fallback.isEmpty {
            _ = try? window.runner.run(commands: window.fallback)
        }
        if let zoom = window.zoom,
           let zoomed = try? window.runner.run(["display-message", "-p", "-t", window.target, "#{window_zoomed_flag}"]),
           zoomed.first == "0" {
            _ = try? window.runner.run(commands: [zoom])
        }
    }

    /// The session part (`=NAME:`) of a window's target (`=NAME:INDEX`).
    private static func session(of target: String) -> String {
        String(target[...(target.firstIndex(of: ":") ?? target.index(before: target.endIndex))])
    }

    /// The windows of `session` (`=NAME:`): each index, and whether it has
    /// its mark; nil when they cannot be read.
    private static func windows(of session: String, on runner: TmuxRunner) -> [Int: Bool]? {
        guard let output = try? runner.run(["list-windows", "-t", session, "-F", "#{window_index} #{\(markOption)}"]) else {
            return nil
        }
        var found: [Int: Bool] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard let index = fields.first.flatMap({ Int($0) }) else { continue }
            found[index] = fields.dropFirst().first == "1"
        }
        return found
    }
}
