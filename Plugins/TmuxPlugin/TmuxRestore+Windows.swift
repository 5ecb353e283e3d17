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
    /// fails. When a call fails, the session's windows are read back: those
    /// before the failure are complete and left alone; the window it stopped
    /// in is said to be not all as it was and arranged as far as it goes;
    /// the windows after it are made one call each, as if alone. So one
    /// window that cannot be made whole costs only itself.
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
            for batch in Self.batches(of: paths, commands: { windows[$0]?.allCommands ?? [] }) {
                makeWindows(batch, warn: warn)
            }
        }
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

    /// Makes the windows at `paths`, of one session, in one tmux call; when
    /// it fails, finds where it stopped (see ``makeWindows(warn:)``).
    private mutating func makeWindows(_ paths: [RestorationPath], warn: (String) -> Void) {
        let batch = paths.compactMap { path in windows[path].map { (path, $0) } }
        guard let runner = batch.first?.1.runner else { return }
        let failure: TmuxError
        do {
            _ = try runner.run(commands: batch.flatMap(\.1.allCommands))
            return
        } catch {
            failure = error
        }
        let found = Self.windows(of: batch[0].1.target, on: runner)
        var stopped = false
        for (position, (path, window)) in batch.enumerated() {
            if stopped {
                makeAlone(window, at: path, warn: warn)
                continue
            }
            if let made = found[window.index], made.panes >= window.paneCount {
                // Complete, unless the call stopped in its arrangement: the
                // last window of the call, or the one before a missing one.
                if position == batch.count - 1 {
                    windowNotWhole(window, at: path, failure, zoomed: made.zoomed, warn: warn)
                }
                continue
            }
            stopped = true
            if let made = found[window.index] {
                // Made in part: the pane it stopped at had no room.
                windowNotWhole(window, at: path, failure, zoomed: made.zoomed, warn: warn)
            } else {
                // Not made: either its own making failed, or the window
                // before it stopped in its arrangement.
                if position > 0 {
                    let (previousPath, previous) = batch[position - 1]
                    windowNotWhole(previous, at: previousPath, failure, zoomed: found[previous.index]?.zoomed ?? false, warn: warn)
                }
                makeAlone(window, at: path, warn: warn)
            }
        }
    }

    /// Makes one window in a call of its own; when that fails, it is
    /// arranged as far as it can be, and only what failed is missing.
    private mutating func makeAlone(_ window: Window, at path: RestorationPath, warn: (String) -> Void) {
        do {
            _ = try window.runner.run(commands: window.allCommands)
        } catch {
            windowNotWhole(window, at: path, error, zoomed: false, warn: warn)
        }
    }

    /// Says that `window` is not all as it was, keeps its panes' files from
    /// being left behind, and arranges it again: its zoom only when it is
    /// not zoomed already (a zoom toggles), the least arrangement when its
    /// own fails (a layout that no longer fits).
    private mutating func windowNotWhole(_ window: Window, at path: RestorationPath, _ error: TmuxError, zoomed: Bool, warn: (String) -> Void) {
        warn("\(window.target): the window is not all as it was: \(error)")
        windowFailed(at: path)
        let arranging = window.arranging + (zoomed ? [] : (window.zoom.map { [$0] } ?? []))
        // (No commands at all would be a bare `tmux`: a new session.)
        if !arranging.isEmpty, (try? window.runner.run(commands: arranging)) == nil, !window.fallback.isEmpty {
            _ = try? window.runner.run(commands: window.fallback)
        }
    }

    /// The windows of the session of `target` (`=NAME:INDEX`): each index
    /// with its panes and whether it is zoomed; empty when they cannot be read.
    private static func windows(of target: String, on runner: TmuxRunner) -> [Int: (panes: Int, zoomed: Bool)] {
        let session = String(target[...(target.firstIndex(of: ":") ?? target.index(before: target.endIndex))])
        guard let output = try? runner.run(["list-windows", "-t", session, "-F", "#{window_index} #{window_panes} #{window_zoomed_flag}"]) else {
            return [:]
        }
        var found: [Int: (panes: Int, zoomed: Bool)] = [:]
        for line in output.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let index = Int(fields[0]), let panes = Int(fields[1]) else { continue }
            found[index] = (panes, fields[2] == "1")
        }
        return found
    }
}
