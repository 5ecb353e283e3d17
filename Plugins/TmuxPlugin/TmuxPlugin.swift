import FoundationEssentials
import MessagePack
import NeovimControl
import PluginToolkit
import RestorationKit
import SavedText
import SystemPackage
import TmuxControl
import TerminalPrograms
import SystemSupport

/// The plugin's entry point: the C ABI's `restored_plugin_v1`.
@_cdecl("restored_plugin_v1")
public func restoredPluginV1() -> UnsafeRawPointer {
    PluginExport.descriptor(for: TmuxPlugin.self)
}

/// The restoration class of tmux: every tmux server of the user, with its
/// sessions, windows, panes and the programs they show.
///
/// The tree: a ``ServerObject`` per socket (its name), a ``SessionObject``
/// per session (its name), a ``WindowObject`` per window (its index), a
/// ``PaneObject`` per pane (its index) and, in a pane that shows a program
/// of the allow-list, a ``ProgramObject`` (and under a Neovim, its state:
/// an ``EditorObject``). Each is recreated by its own
/// restoration class, parents first (R8); layouts, zoom and the active and
/// last windows and panes are applied once every pane exists (R9), the
/// active ones held as references (R14).
///
/// Options (`[org.restored.Tmux]` in restored.conf, or `--option`):
/// `programs` (the allow-list: names replace it, `+name` adds to it),
/// `ignore-servers` (socket names not saved nor restored), `pane-contents`
/// (`true` keeps each pane's visible text and shows it again above the new
/// shell's prompt; off by default, as pane text can hold secrets).
final class TmuxPlugin: RestorationPlugin {
    static let appID = "org.restored.Tmux"
    static let appVersion = "1"
    static let displayName = "tmux"
    static var restorationClasses: [any RestorationClass.Type] {
        [ServerObject.self, SessionObject.self, WindowObject.self, PaneObject.self, ProgramObject.self, EditorObject.self]
    }

    let context: PluginContext
    let environment: [String: String]
    let policy: ProgramPolicy
    let ignoredServers: Set<String>
    let keepsPaneContents: Bool
    /// Starts tmux servers as `app-restored-tmux@RANDOM.service` units.
    let launcher: AppLauncher
    private var servers: [ServerObject] = []

    init(context: PluginContext) throws {
        self.context = context
        environment = ProcessInfo.processInfo.environment
        policy = ProgramPolicy(option: context.options["programs"])
        ignoredServers = Set(OptionList.names(context.options["ignore-servers"]))
        keepsPaneContents = OptionList.isOn(context.options["pane-contents"])
        launcher = AppLauncher(appID: "tmux", context: context, environment: environment)
    }

    /// What a save knows beside a server's snapshot.
    struct SaveContext {
        /// Which programs are kept.
        let policy: ProgramPolicy
        /// The panes' visible text, by ``PaneContents/key(session:window:pane:)``, when kept.
        let contents: [String: String]
        /// The state of a pane's program, when it is a Neovim that answers.
        let readEditor: (ForegroundProgram) -> EditorObject?
    }

    /// How long one save may spend asking Neovims, all of them together
    /// (each at most a second):
    /// a Neovim that does not answer (stopped, or busy) must not cost the
    /// suspend budget.
    static let editorReadBudget: Duration = .seconds(2)
    /// How long starting one tmux server through the user manager may take,
    /// every D-Bus call in it included.
    static let serverStartBudget: Duration = .seconds(10)

    /// When this save stops asking Neovims.
    private var editorReadDeadline = ContinuousClock.now

    /// The state of `program` when it is a Neovim (asked over its socket,
    /// a second at most, within ``editorReadBudget``); a Neovim that does
    /// not answer, or that waits for its user's answer, is one log line and
    /// is restored as it was typed.
    func readEditor(of program: ForegroundProgram) -> EditorObject? {
        guard NeovimServer.isNeovim(pid: program.pid) else { return nil }
        let left = ContinuousClock.now.duration(to: editorReadDeadline)
        guard left > .milliseconds(10) else {
            context.log("nvim \(program.pid): this save has spent its \(Self.editorReadBudget) on Neovims; its files and windows are not saved, only its command", level: .notice)
            return nil
        }
        var problem: String?
        let editor = EditorObject.read(from: program, before: ContinuousClock.now + min(.seconds(1), left), problem: &problem)
        if editor == nil, let problem {
            context.log("\(problem): its files and windows are not saved, only its command", level: .notice)
        }
        return editor
    }

    var rootObjects: [any RestorableObject] { servers }

    /// The runner of the server on `socket`; nil (said once) when tmux is not installed.
    func runner(for socket: FilePath) -> TmuxRunner? {
        guard let runner = TmuxRunner(socket: socket, environment: environment) else {
            if !saidNoTmux {
                context.log("tmux is not installed (not in PATH): there is nothing to save or restore", level: .notice)
                saidNoTmux = true
            }
            return nil
        }
        return runner
    }

    private var saidNoTmux = false

    /// The version of the tmux `runner` runs, asked once per plugin host
    /// (nil when `tmux -V` names none: then every feature is tried).
    private var versions: [FilePath: TmuxVersion?] = [:]
    /// The features already said to be missing.
    private var saidTooOld: Set<TmuxFeature> = []

    /// Whether `runner`'s tmux has `feature`; when it does not, says so
    /// once, with what the plugin does instead (`otherwise`).
    func supports(_ feature: TmuxFeature, runner: TmuxRunner, otherwise: String) -> Bool {
        guard let version = version(of: runner), version < feature.minimumVersion else { return true }
        if saidTooOld.insert(feature).inserted {
            context.log("tmux \(version) is too old for \(feature.summary), which needs tmux \(feature.minimumVersion) or later: \(otherwise)", level: .notice)
        }
        return false
    }

    /// The version of `runner`'s tmux, asked once; nil (said once) when
    /// `tmux -V` names none.
    func version(of runner: TmuxRunner) -> TmuxVersion? {
        if versions[runner.executable] == nil {
            do {
                versions[runner.executable] = .some(try runner.version())
            } catch {
                context.log("\(error); every feature is tried", level: .notice)
                versions[runner.executable] = .some(nil)
            }
        }
        return versions[runner.executable] ?? nil
    }

    /// `text` (saved, so untrusted) written for `place` of a command to
    /// `runner`'s tmux so that tmux keeps it as it is (``TmuxLiteral``).
    func literal(_ text: String, for place: TmuxLiteral.Place, runner: TmuxRunner) -> String {
        TmuxLiteral.text(text, for: place, version: version(of: runner))
    }

    /// The socket of the server named `name`, in the user's socket directory.
    func socket(named name: String) -> FilePath {
        TmuxServer.socketDirectory(environment: environment).appending(name)
    }

    // MARK: Saving

    /// The servers that answered at this plugin's last save.
    private var answeredLastTime: Set<String> = []

    /// Reads every server; decides whether what answers may replace the
    /// last archive (see `docs/tmux.md`, "When tmux goes away"): when it may not,
    /// the answer is "keep what you have" and the last archive stays.
    func saveDecision(coder: StateCoder) throws -> SaveDecision {
        servers = []
        editorReadDeadline = WalkTime.deadline(in: context, atMost: Self.editorReadBudget)
        let sockets = TmuxServer.sockets(environment: environment).filter { !ignoredServers.contains($0.name) }
        var unreadable: [String] = []
        for server in sockets {
            guard let runner = runner(for: server.socket) else { break }
            do {
                let snapshot = try TmuxSnapshot.read(from: runner, version: version(of: runner))
                let contents = keepsPaneContents ? try PaneContents.read(snapshot, from: runner) : [:]
                servers.append(ServerObject(name: server.name, snapshot: snapshot, runner: runner, context: SaveContext(policy: policy, contents: contents, readEditor: readEditor(of:))))
            } catch TmuxError.noServer {
                // A stale socket (its server gone) is no error.
            } catch {
                // Anything else is this server's only.
                context.log("\(server.name): \(error); this server is not saved", level: .warning)
                unreadable.append(server.name)
            }
        }
        let answered = Set(servers.compactMap(\.restorationIdentifier))
        let gone = answeredLastTime.subtracting(answered)
        // While the session ends, servers die around this save: fewer of
        // them than last time (or none, where sockets remain) is the session
        // going, not the user quitting tmux: the last archive is kept. No
        // socket at all: tmux never ran since the machine started.
        if context.saveOccasion?.endsSession == true, !gone.isEmpty || (servers.isEmpty && !sockets.isEmpty) {
            context.log(gone.isEmpty
                ? "no tmux server answers while the session ends: keeping the last archive"
                : "tmux server \(gone.sorted().joined(separator: ", ")) went away while the session ends: keeping the last archive")
            return .keepLastArchive
        }
        // Servers are there but none could be read (busy, or slower than
        // the budget): there is nothing to say now, and what was saved is
        // still the best there is.
        if servers.isEmpty && !unreadable.isEmpty {
            context.log("no tmux server could be read (\(unreadable.sorted().joined(separator: ", "))): keeping the last archive")
            return .keepLastArchive
        }
        answeredLastTime = answered
        // No server while the session lives on: the user quit tmux; nothing
        // to save, and the last archive is stale (R6).
        return servers.isEmpty ? .decline : .save
    }



    // MARK: Restoring

    /// The restore under way: what it made and what it still does (R9).
    var restore = TmuxRestore()

    func restorationDidFinish() {
        restore.makeWindows { context.log($0, level: .warning) }
        // The sessions none of whose windows were made here (a group's
        // members) select theirs, one call each; then the marks come off,
        // and the windows no saved one took go.
        for (runner, commands) in restore.sessionCommands { _ = try? runner.run(commands: commands) }
        restore.finishServers()
        typePrograms()
        replayEditors()
        // The sessions that kept an old tmux's new server alive (see ServerObject).
        for (runner, session) in restore.placeholderSessions { _ = try? runner.run(["kill-session", "-t", "=\(session)"]) }
        // A server started for sessions none of which could be made has
        // nothing to show: it is stopped again rather than left empty.
        for name in restore.startedServers {
            guard let runner = runner(for: socket(named: name)) else { continue }
            if ((try? runner.run(["list-sessions", "-F", "x"])) ?? "").isEmpty {
                _ = try? runner.run(["kill-server"])
                context.log("the tmux server \(name) was started, but none of its sessions could be restored: it is stopped again", level: .warning)
            }
        }
        if !restore.startedServers.isEmpty {
            context.log("started tmux server \(restore.startedServers.joined(separator: ", "))", level: .info)
        }
        // A pane's text that no shell will print (its window failed) is not
        // left behind. The panes of that window made before the failure
        // print theirs and remove it: they are given two seconds to.
        let printing = ContinuousClock.now + .seconds(2)
        while restore.unprintedFiles.contains(where: { access($0.string, F_OK) == 0 }), ContinuousClock.now < printing { usleep(50_000) }
        for file in restore.unprintedFiles { unlink(file.string) }
        restore = TmuxRestore()
    }

    /// Where the plugin writes the one-use files a restored pane reads (its
    /// program's script, its text): `$XDG_RUNTIME_DIR`, which only the user
    /// can enter and which goes with their session. Nil without one, or
    /// when its path holds a character a shell would read (it is typed
    /// into the pane): then no such file is written, and the panes come
    /// back without their programs and text.
    var runtimeDirectory: FilePath? { OneUseFile.directory(environment: environment) }

    /// How long typing the restored programs may take, all of them and
    /// every tmux call in it included.
    static let programTypingBudget: Duration = .seconds(5)
    /// How long, of that, the programs wait for their panes' ptys to take
    /// the panes' sizes.
    static let paneSizeWait: Duration = .seconds(2)

    /// Starts each pending program in its pane's shell once the pane's pty
    /// has the pane's size (``PaneTerminal``; ``paneSizeWait`` at most for
    /// all), all within ``programTypingBudget``: the shell is given a
    /// constant line that runs a one-use script holding the arguments
    /// (``ProgramScript``), never the arguments.
    func typePrograms() {
        let start = ContinuousClock.now
        let budgetEnd = start + Self.programTypingBudget
        let sizeDeadline = start + Self.paneSizeWait
        for program in restore.pendingPrograms {
            let runner = program.runner.bounded(by: budgetEnd)
            var script: ProgramScript?
            do {
                guard let directory = runtimeDirectory else {
                    throw OneUseFileError.noRuntimeDirectory
                }
                script = try ProgramScript.write(arguments: program.arguments, in: directory)
                let line = script?.typedLine ?? ""
                let fields = try runner.run(["display-message", "-p", "-t", program.target, "#{pane_pid} #{pane_width} #{pane_height}"])
                    .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
                if fields.count == 3, let pid = Int32(exactly: fields[0]) {
                    while let size = PaneTerminal.size(ofPanePID: pid), size != (fields[1], fields[2]), ContinuousClock.now < sizeDeadline {
                        usleep(10_000)
                    }
                }
                _ = try runner.bounded(by: budgetEnd).run(commands: [["send-keys", "-t", program.target, "-l", line], ["send-keys", "-t", program.target, "Enter"]])
            } catch {
                // Never typed: the script would stay behind.
                if let script { unlink(script.path.string) }
                context.log("\(program.path): cannot start \(program.arguments.first ?? ""): \(error)", level: .warning)
                // No nvim will come up there: its state waits for nothing.
                restore.programNotTyped(program)
            }
        }
    }

    /// How long the Neovims typed by a restore have, together, to come up
    /// and take their state (a hang guard on a loaded machine): every tmux
    /// call and Neovim request in it included.
    static let editorStartTimeout: Duration = .seconds(15)

    /// Replays each pending Neovim's state into the nvim its pane now runs,
    /// each as soon as it listens: the panes are watched together, so a
    /// Neovim that never comes costs the others nothing.
    func replayEditors() {
        NeovimReplayQueue.replay(restore.pendingEditors, within: min(Self.editorStartTimeout, context.timeLeftInWalk ?? Self.editorStartTimeout), sizing: .cells, session: \.session) { pending, deadline in
            try editorSocket(for: &pending, before: deadline)
        } report: { outcome in
            for line in outcome.lines(name: \.path, place: { "pane \($0.target)" }, timeout: Self.editorStartTimeout) {
                context.log(line.text, level: line.warning ? .warning : .notice)
            }
        }
    }

    /// The socket of the nvim `pending`'s pane runs; nil while it runs none yet.
    private func editorSocket(for pending: inout TmuxRestore.PendingEditor, before deadline: ContinuousClock.Instant) throws -> FilePath? {
        if pending.panePID == nil {
            let output = try pending.runner.bounded(by: deadline).run(["display-message", "-p", "-t", pending.target, "#{pane_pid}"])
            guard let pid = Int32(output.trimmingWhitespace()) else {
                throw TmuxError.unreadableOutput(socket: pending.runner.socket, detail: "no process for pane \(pending.target)")
            }
            pending.panePID = pid
        }
        guard let pid = pending.panePID, let program = ForegroundProgram.of(panePID: pid), NeovimServer.isNeovim(pid: program.pid) else { return nil }
        return NeovimServer.sockets(ofProcess: program.pid).first
    }
}

#if canImport(Glibc)
import Glibc
#endif
