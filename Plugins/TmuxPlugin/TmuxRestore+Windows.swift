import RestorationKit
import SystemPackage
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
    /// fails. Each window's commands mark it with the window option
    /// `@restored-made`: `0` once it exists, `1` once it is complete. When a
    /// call fails, the session's windows are read back, and the first window
    /// of the call not marked `1` is the one it stopped in: made alone when
    /// the call never reached it (absent, or the session's first window
    /// unmarked), arranged as far as it goes and said to be not all as it
    /// was when made in part. The windows before it are complete; the ones
    /// after it, untouched by the call, are made alone. So one window that
    /// cannot be made whole costs only itself. The marks come off in
    /// ``finishServers()``.
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
            let calls = Self.batches(of: paths) { path in windows[path].map(Self.markedCommands) ?? [] }
            // The session's selections end its last call.
            let selecting = selectingCommands.removeValue(forKey: session)?.commands ?? []
            for (number, batch) in calls.enumerated() {
                makeWindows(batch, selecting: number == calls.count - 1 ? selecting : [], warn: warn)
            }
        }
        // Sessions none of whose windows is made here select alone.
        sessionCommands += selectingCommands.values.filter { !$0.commands.isEmpty }
        selectingCommands = [:]
    }

    /// Takes the marks off the windows of this restore's calls and ends the
    /// windows no saved one took, in one tmux call per server (marks first:
    /// ending a window may renumber the others); when that fails, each
    /// alone, so that one gone costs only itself.
    func finishServers() {
        var servers: [FilePath] = []
        var commandsOfServer: [FilePath: (runner: TmuxRunner, commands: [[String]])] = [:]
        func add(_ runner: TmuxRunner, _ command: [String]) {
            if commandsOfServer[runner.socket] == nil { servers.append(runner.socket) }
            commandsOfServer[runner.socket, default: (runner, [])].commands.append(command)
        }
        for (runner, target) in markedWindows { add(runner, Self.unmark(target)) }
        for (runner, window) in endingWindows { add(runner, ["kill-window", "-t", window]) }
        for server in servers {
            guard let (runner, commands) = commandsOfServer[server] else { continue }
            // In order, in calls that fit: every mark comes off before a window goes.
            for call in Self.batches(of: Array(commands.indices), commands: { [commands[$0]] }) {
                let chunk = call.map { commands[$0] }
                if (try? runner.run(commands: chunk)) != nil { continue }
                for command in chunk { _ = try? runner.run(commands: [command]) }
            }
        }
    }

    /// `paths` in runs whose commands fit in one call: a window's commands
    /// are never split (one bigger than the budget goes alone).
    static func batches<Item>(of paths: [Item], commands: (Item) -> [[String]]) -> [[Item]] {
        var batches: [[Item]] = []
        var current: [Item] = []
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

    /// The window option that marks how far a call made a window.
    private static let markOption = "@restored-made"

    /// `window`'s commands in a call: marked `0` once its first command
    /// made it (or, for the session's first window, respawned it), `1` at
    /// their end.
    private static func markedCommands(_ window: Window) -> [[String]] {
        let commands = window.allCommands
        guard let first = commands.first else { return [] }
        return [first, mark(window.target, "0")] + commands.dropFirst() + [mark(window.target, "1")]
    }

    /// The command that marks the window `target` with `value`.
    private static func mark(_ target: String, _ value: String) -> [String] {
        ["set-window-option", "-t", target, markOption, value]
    }

    /// The command that takes the mark off the window `target`.
    private static func unmark(_ target: String) -> [String] {
        ["set-window-option", "-u", "-t", target, markOption]
    }

    /// Makes the windows at `paths`, of one session, in one tmux call, then
    /// runs `selecting` (the session's last and active windows); when the
    /// call fails, finds where it stopped (see ``makeWindows(warn:)``).
    private mutating func makeWindows(_ paths: [RestorationPath], selecting: [[String]], warn: (String) -> Void) {
        let batch = paths.compactMap { path in windows[path].map { (path, $0) } }
        guard let runner = batch.first?.1.runner else { return }
        markedWindows += batch.map { (runner, $0.1.target) }
        let failure: TmuxError
        do {
            _ = try runner.run(commands: batch.flatMap { Self.markedCommands($0.1) } + selecting)
            return
        } catch {
            failure = error
        }
        // Selecting by index changes nothing twice: it runs again at the end.
        defer { if !selecting.isEmpty { _ = try? runner.run(commands: selecting) } }
        let session = Self.session(of: batch[0].1.target)
        guard let marks = Self.marks(of: session, on: runner) else {
            // Nothing is known of what the call made: nothing is made again,
            // and no pane's saved text is left behind.
            warn("\(session): the windows may not all be as they were: a tmux call failed (\(failure)) and the windows could not be read back")
            for (path, _) in batch { windowFailed(at: path) }
            return
        }
        var stopped = false
        for (path, window) in batch {
            switch marks[window.index] {
            case "1"?:
                // Complete (after the stop only if it was made meanwhile).
                continue
            case "0"? where !stopped:
                // Made in part, or arranged in part: as far as it goes.
                stopped = true
                windowNotWhole(window, at: path, failure, warn: warn)
            default:
                // Never reached by the call: not there, or the session's
                // first window untouched.
                stopped = true
                makeAlone(window, at: path, warn: warn)
            }
        }
        if !stopped && selecting.isEmpty {
            // Every window complete: the call failed past them (its client
            // ended before tmux answered). Nothing is missing.
            return
        }
        if !stopped {
            warn("\(session): its active and last windows may not be as they were: \(failure)")
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

    /// The windows of `session` (`=NAME:`): each index with its mark (empty
    /// when unmarked); nil when they cannot be read.
    private static func marks(of session: String, on runner: TmuxRunner) -> [Int: String]? {
        guard let output = try? runner.run(["list-windows", "-t", session, "-F", "#{window_index} #{\(markOption)}"]) else {
            return nil
        }
        var found: [Int: String] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard let index = fields.first.flatMap({ Int($0) }) else { continue }
            found[index] = fields.dropFirst().first.map(String.init) ?? ""
        }
        return found
    }
}
