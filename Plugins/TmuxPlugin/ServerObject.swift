import FoundationEssentials
import PluginToolkit
import RestorationKit
import SystemPackage
import TmuxControl

/// One tmux server, by its socket's name; its children are its sessions.
///
/// Restoring it makes sure a server listens on that socket: when none does,
/// one is started as `tmux -D -S SOCKET` (in the foreground, so its unit
/// lives as long as it does) by the user manager, or detached without one
/// (``UserUnitLauncher``). A tmux before 3.2 has no `-D`: its server is
/// started as a daemon of a `Type=forking` unit with a placeholder session,
/// which goes once the saved sessions exist (said once).
final class ServerObject: RestorableObject, RestorationClass {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)? = ServerObject.self
    let runner: TmuxRunner
    let version: String
    private(set) var sessions: [SessionObject] = []

    var restorationChildren: [any RestorableObject] { sessions }

    /// A server read at a save.
    init(name: String, snapshot: TmuxSnapshot, runner: TmuxRunner, context: TmuxPlugin.SaveContext) {
        restorationIdentifier = name
        self.runner = runner
        version = snapshot.version
        // Sessions that share their windows with a group's first session
        // come after it, so that it exists when they are restored.
        // A group's first session is the one it is named after (tmux names
        // a group after the session the others were made from), else its
        // first by name.
        var leaders: [String: String] = [:]
        for session in snapshot.sessions {
            guard let group = session.group else { continue }
            if leaders[group] == nil || session.name == group { leaders[group] = session.name }
        }
        let isLeader = { (session: TmuxSnapshot.Session) in session.group.map { leaders[$0] == session.name } ?? true }
        let ordered = snapshot.sessions.filter(isLeader) + snapshot.sessions.filter { !isLeader($0) }
        sessions = ordered.map { session in
            SessionObject(session, groupLeader: isLeader(session) ? nil : session.group.flatMap { leaders[$0] }, context: context)
        }
    }

    /// A server found or started at a restore.
    private init(name: String, runner: TmuxRunner) {
        restorationIdentifier = name
        self.runner = runner
        version = ""
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(version, forKey: "version")
    }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? TmuxPlugin, let name = path.last, path.components.count == 1,
              !plugin.ignoredServers.contains(name)
        else { return nil }
        // The name becomes a socket path: one tmux could not have made is refused.
        guard TmuxName.isServerName(name) else {
            plugin.context.log("\(path): no tmux server is named so (a /, a control character, . or ..): it is not restored", level: .warning)
            return nil
        }
        guard let runner = plugin.runner(for: plugin.socket(named: name)) else { return nil }
        if (try? runner.run(["list-sessions"])) != nil {
            return ServerObject(name: name, runner: runner)
        }
        do {
            try start(name: name, runner: runner, plugin: plugin)
        } catch {
            plugin.context.log("cannot start the tmux server \(name): \(error)", level: .error)
            return nil
        }
        return ServerObject(name: name, runner: runner)
    }

    /// Starts a server on `runner`'s socket and waits until it answers.
    private static func start(name: String, runner: TmuxRunner, plugin: TmuxPlugin) throws {
        let directory = runner.socket.removingLastComponent()
        try FileManager.default.createDirectory(atPath: directory.string, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // tmux before 3.2 cannot stay in the foreground: its server is a
        // daemon the unit follows (Type=forking), started with a placeholder
        // session (a server with none ends) that goes once the restore has
        // made the saved ones. No option of the user's is touched.
        let foreground = plugin.supports(.foregroundServer, runner: runner, otherwise: "the server is started as a daemon of a forking unit")
        let placeholder = "restored-starting-\(String(UInt64.random(in: 1 ... UInt64.max), radix: 16))"
        let command = foreground
            ? [runner.executable.string, "-D", "-S", runner.socket.string]
            : [runner.executable.string, "-S", runner.socket.string, "new-session", "-d", "-s", placeholder]
        // Both waits are hang guards, not speed requirements, and the
        // walk's own time can end them sooner: each error says how long it
        // waited, and which limit ended it.
        let limit = Duration.seconds(10)
        // A server that is ending (a kill-server a moment ago) still takes
        // connections on its socket, closing each at once, until it exits:
        // a tmux started then connects to it as a client and ends with it.
        var waitStarted = ContinuousClock.now
        var deadline = WalkTime.deadline(in: plugin.context, atMost: limit)
        guard Waiting.forSocketRelease(runner.socket, until: deadline) else {
            throw TmuxError.socketHeld(name: name, socket: runner.socket, within: deadline - waitStarted, walkTimeEnded: deadline < waitStarted + limit)
        }
        // Every wait of the start, D-Bus calls included, ends by its
        // budget's end, and by the walk's.
        _ = try plugin.launcher.launch(
            command, named: "the tmux server \(name)", in: plugin.environment["HOME"].map { FilePath($0) },
            runs: foreground ? .exec : .forking, until: WalkTime.deadline(in: plugin.context, atMost: TmuxPlugin.serverStartBudget)
        )
        // The server listens once its socket answers.
        waitStarted = ContinuousClock.now
        deadline = WalkTime.deadline(in: plugin.context, atMost: limit)
        guard Waiting.until(deadline, { (try? runner.run(["list-sessions"])) != nil }) else {
            throw TmuxError.serverDidNotStart(name: name, within: deadline - waitStarted, walkTimeEnded: deadline < waitStarted + limit)
        }
        plugin.restore.serverStarted(name, placeholderSession: foreground ? nil : (runner, placeholder))
    }
}
