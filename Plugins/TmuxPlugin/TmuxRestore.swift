import FoundationEssentials
import NeovimControl
import RestorationKit
import SystemPackage
import TmuxControl

/// One restore of the tmux plugin: what it has made so far, and what it
/// does once every object exists (R9). Owned by the ``TmuxPlugin`` alone
/// (made anew for each restore); the restoration classes change it only
/// through its methods, each of which says what happened.
struct TmuxRestore {
    /// A window this restore makes: where its panes go, and the commands
    /// that make them (run in its ``WindowObject/finishedRestoringState()``).
    struct Window {
        let runner: TmuxRunner
        let target: String
        /// The window's index in its session.
        let index: Int
        /// The pane tmux made with the window.
        let firstPane: Int
        /// The pane created last.
        var lastPane: Int
        /// Whether a saved pane took the first pane.
        var firstPaneUsed = false
        /// The commands that make it and its panes, run with its
        /// arrangement once all its panes are known.
        var commands: [[String]] = []
        /// The commands that give it its layout and its active and last
        /// panes, once made (its ``WindowObject/finishedRestoringState()``).
        var arranging: [[String]] = []
        /// The command that zooms its active pane, run last, if it was zoomed.
        var zoom: [String]?
        /// What is run when `arranging` fails: the least arrangement.
        var fallback: [[String]] = []
        /// The files its panes print (their saved text), each removed by
        /// the pane's shell once printed.
        var paneFiles: [FilePath] = []

        /// Every command that makes and arranges it, in order.
        var allCommands: [[String]] { commands + arranging + (zoom.map { [$0] } ?? []) }
    }

    /// A pane this restore makes: its server and target.
    struct Pane {
        let runner: TmuxRunner
        let target: String
    }

    /// A program to type into its pane once every window has its layout.
    struct PendingProgram {
        let runner: TmuxRunner
        let target: String
        let arguments: [String]
        /// The pane's restoration path, for the log.
        let path: String
    }

    /// A Neovim state waiting for its nvim: the pane, the saved state, the
    /// object's path, and the pane's first process once known.
    struct PendingEditor {
        let runner: TmuxRunner
        let target: String
        let session: NeovimSession
        let path: String
        var panePID: Int32?
    }

    /// The sessions made, by path.
    private(set) var sessions: [RestorationPath: SessionObject] = [:]
    /// The windows made, by path.
    private(set) var windows: [RestorationPath: Window] = [:]
    /// The windows' paths, in the order they were made.
    private(set) var windowOrder: [RestorationPath] = []
    /// The panes made, by path.
    private(set) var panes: [RestorationPath: Pane] = [:]
    /// The programs typed again, by path.
    private(set) var programs: Set<RestorationPath> = []
    /// The programs to type once every window has its layout.
    private(set) var pendingPrograms: [PendingProgram] = []
    /// The Neovims to replay once every pane has its size.
    private(set) var pendingEditors: [PendingEditor] = []
    /// The tmux servers started, to say what was done.
    private(set) var startedServers: [String] = []
    /// What each session does once every window exists: the window tmux
    /// made with it goes when unused, and the last and active windows are
    /// selected.
    var sessionCommands: [(runner: TmuxRunner, commands: [[String]])] = []
    /// The placeholder sessions of the servers started as daemons (tmux
    /// before 3.2), killed once the saved sessions exist.
    private(set) var placeholderSessions: [(runner: TmuxRunner, session: String)] = []
    /// The pane files of windows whose making failed: no shell may print
    /// them, so they are removed at the restore's end.
    private(set) var unprintedFiles: [FilePath] = []
    /// Each server's `pane-base-index`, asked once.
    private var paneBaseIndexes: [FilePath: Int] = [:]
    /// The sessions each server had when this restore first asked, and
    /// the ones it made since.
    private var existingSessions: [FilePath: Set<String>] = [:]

    /// A server was started for this restore.
    mutating func serverStarted(_ name: String, placeholderSession: (runner: TmuxRunner, session: String)?) {
        startedServers.append(name)
        if let placeholderSession { placeholderSessions.append(placeholderSession) }
    }

    /// The session at `path` was made.
    mutating func sessionMade(_ session: SessionObject, at path: RestorationPath) {
        sessions[path] = session
    }

    /// A session's last commands, for once every window exists: the last
    /// and active windows it selects (at the end of its windows' last call,
    /// ``makeWindows(warn:)``, or alone), and the window it ends (the one
    /// tmux made with it, unused), which goes in ``finishServers()``.
    mutating func sessionFinishes(_ session: SessionObject, runner: TmuxRunner, selecting: [[String]], ending window: String?) {
        if let path = sessions.first(where: { $0.value === session })?.key {
            selectingCommands[path] = (runner, selecting)
        } else if !selecting.isEmpty {
            sessionCommands.append((runner, selecting))
        }
        if let window { endingWindows.append((runner, window)) }
    }

    /// The selections of the sessions made here, run at the end of their
    /// windows' last call; what remains (no window made) goes to
    /// `sessionCommands`.
    var selectingCommands: [RestorationPath: (runner: TmuxRunner, commands: [[String]])] = [:]
    /// The windows to end once every session is made: the ones tmux made
    /// with a session and no saved window took, by id.
    private(set) var endingWindows: [(runner: TmuxRunner, window: String)] = []
    /// The windows that may carry the mark of a window call
    /// (``makeWindows(warn:)``), taken off in ``finishServers()``.
    var markedWindows: [(runner: TmuxRunner, target: String)] = []

    /// The window at `path` is to be made with `window`'s commands.
    mutating func windowMade(_ window: Window, at path: RestorationPath) {
        if windows[path] == nil { windowOrder.append(path) }
        windows[path] = window
    }

    /// The window at `path` gets `arranging`, then `zoom`, once made; when
    /// `arranging` fails, `fallback`.
    mutating func windowArranged(at path: RestorationPath, arranging: [[String]], zoom: [String]?, fallback: [[String]]) {
        windows[path]?.arranging = arranging
        windows[path]?.zoom = zoom
        windows[path]?.fallback = fallback
    }

    /// The pane at `path` (of the window at its parent, now `window`) is
    /// to be made as `target`; `file` is the text it prints, if any.
    mutating func paneMade(at path: RestorationPath, in window: Window, target: String, printing file: FilePath?) {
        guard let parent = path.parent else { return }
        var window = window
        if let file { window.paneFiles.append(file) }
        windows[parent] = window
        panes[path] = Pane(runner: window.runner, target: target)
    }

    /// The window at `path` could not be made whole: its panes' files may
    /// never be printed.
    mutating func windowFailed(at path: RestorationPath) {
        unprintedFiles += windows[path]?.paneFiles ?? []
    }

    /// The program at `path` is typed into its pane later.
    mutating func programTyped(at path: RestorationPath, _ program: PendingProgram) {
        pendingPrograms.append(program)
        programs.insert(path)
    }

    /// A Neovim's state waits for its nvim.
    mutating func editorWaits(_ editor: PendingEditor) {
        pendingEditors.append(editor)
    }

    /// No nvim will come up in `program`'s pane: its state waits for nothing.
    mutating func programNotTyped(_ program: PendingProgram) {
        pendingEditors.removeAll { $0.target == program.target && $0.runner.socket == program.runner.socket }
    }

    /// Whether `runner`'s server has a session named `name`: its sessions
    /// are listed once per restore (a `has-session` per saved session
    /// started a tmux client each). When they cannot be listed, it asks
    /// for this one.
    mutating func hasSession(named name: String, on runner: TmuxRunner) -> Bool {
        if existingSessions[runner.socket] == nil, let output = try? runner.run(["list-sessions", "-F", "#{session_name}"]) {
            existingSessions[runner.socket] = Set(output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init))
        }
        guard let known = existingSessions[runner.socket] else {
            return (try? runner.run(["has-session", "-t", "=\(name)"])) != nil
        }
        return known.contains(name)
    }

    /// The session `name` was made on `runner`'s server.
    mutating func sessionCreated(named name: String, on runner: TmuxRunner) {
        existingSessions[runner.socket]?.insert(name)
    }

    /// The index tmux gives a new window's first pane on `runner`'s server.
    mutating func paneBaseIndex(of runner: TmuxRunner) throws -> Int {
        if let known = paneBaseIndexes[runner.socket] { return known }
        let output = try runner.run(["show-options", "-gwv", "pane-base-index"])
        guard let index = Int(output.trimmingWhitespace()) else {
            throw TmuxError.unreadableOutput(socket: runner.socket, detail: "no pane-base-index: \(output)")
        }
        paneBaseIndexes[runner.socket] = index
        return index
    }
}
