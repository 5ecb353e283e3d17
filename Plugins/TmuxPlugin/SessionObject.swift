import RestorationKit
import SystemSupport
import TmuxControl

/// One tmux session, by name; its children are its windows.
///
/// A session that already exists on the server is left alone with all it
/// holds: a restore never duplicates. A session of a group that is not the
/// group's first is restored sharing that session's windows (`new-session -t`).
final class SessionObject: RestorableObject, RestorationClass {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)? = SessionObject.self
    private(set) var windows: [WindowObject] = []
    private var groupLeader: String?
    private var directory = ""
    private var size: (width: Int, height: Int) = (80, 24)
    /// The current and the previously current window.
    private var activeWindow: WindowObject?
    private var lastWindow: WindowObject?

    /// At a restore: the server, the session's target and the window tmux
    /// made with it, to be replaced by the saved ones.
    private var runner: TmuxRunner?
    private(set) var initialWindow: Int?
    /// The id (`@N`) of the window tmux made with the session, which stays
    /// its own when windows are renumbered.
    private var initialWindowID: String?
    var reusedInitialWindow = false

    var restorationChildren: [any RestorableObject] { windows }

    /// The session's name.
    let name: String

    /// The restoration identifier of session `name`: the name with `%`
    /// and `/` written `%25` and `%2F`, as identifiers hold no `/` (R3)
    /// and tmux names may.
    static func identifier(forName name: String) -> String {
        name.replacingEvery("%", with: "%25").replacingEvery("/", with: "%2F")
    }

    /// The session name ``identifier(forName:)`` wrote as `identifier`.
    static func name(forIdentifier identifier: String) -> String {
        identifier.replacingEvery("%2F", with: "/").replacingEvery("%25", with: "%")
    }

    /// A session read at a save; `groupLeader` is the session whose windows it shares.
    init(_ session: TmuxSnapshot.Session, groupLeader: String?, context: TmuxPlugin.SaveContext) {
        name = session.name
        restorationIdentifier = Self.identifier(forName: session.name)
        self.groupLeader = groupLeader
        directory = session.directory
        if groupLeader == nil {
            windows = session.windows.map { WindowObject($0, session: session.name, context: context) }
            activeWindow = windows.first { $0.isActive }
            lastWindow = windows.first { $0.isLast }
            if let first = session.windows.first { size = (first.width, first.height) }
        }
    }

    /// At a restore: the plugin, which runs the session's last commands
    /// once every window exists.
    private weak var plugin: TmuxPlugin?

    private init(name: String, runner: TmuxRunner, initialWindow: Int?, plugin: TmuxPlugin) {
        self.plugin = plugin
        self.name = name
        restorationIdentifier = Self.identifier(forName: name)
        self.runner = runner
        self.initialWindow = initialWindow
    }

    /// The session's target for tmux commands.
    var target: String { "=\(name):" }

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(directory, forKey: "directory")
        try coder.encode(size.width, forKey: "width")
        try coder.encode(size.height, forKey: "height")
        if let groupLeader { try coder.encode(groupLeader, forKey: "groupLeader") }
        if let activeWindow { try coder.encode(activeWindow, forKey: "activeWindow") }
        if let lastWindow { try coder.encode(lastWindow, forKey: "lastWindow") }
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        activeWindow = try coder.decodeObject(forKey: "activeWindow") as? WindowObject
        lastWindow = try coder.decodeObject(forKey: "lastWindow") as? WindowObject
    }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? TmuxPlugin, path.components.count == 2, let name = path.last.map(Self.name(forIdentifier:)),
              let runner = plugin.runner(for: plugin.socket(named: path.identifiers[0]))
        else { return nil }
        // Names go into targets (`=NAME:`): one that tmux could not have
        // made would name another session or window there.
        guard TmuxName.isSessionName(name) else {
            plugin.context.log("\(path): no tmux session is named so (a :, a ., a control character or nothing): it is not restored", level: .warning)
            return nil
        }
        // Already there: left alone, with its windows (no duplicates).
        if plugin.restore.hasSession(named: name, on: runner) { return nil }
        do {
            if let leader = try coder.decode(String.self, forKey: "groupLeader") {
                guard TmuxName.isSessionName(leader) else { throw TmuxError.invalidState("its group's first session has a name tmux could not have made") }
                _ = try runner.run(["new-session", "-d", "-s", plugin.literal(name, for: .sessionName, runner: runner), "-t", "=\(leader)"])
                plugin.restore.sessionCreated(named: name, on: runner)
                return SessionObject(name: name, runner: runner, initialWindow: nil, plugin: plugin)
            }
            let width = try coder.decode(Int.self, forKey: "width") ?? 80
            let height = try coder.decode(Int.self, forKey: "height") ?? 24
            var command = ["new-session", "-d", "-s", plugin.literal(name, for: .sessionName, runner: runner), "-x", "\(max(width, 1))", "-y", "\(max(height, 1))"]
            if let directory = try coder.decode(String.self, forKey: "directory"), !directory.isEmpty { command += ["-c", plugin.literal(directory, for: .startDirectory, runner: runner)] }
            let output = try runner.run(commands: [command, ["list-windows", "-t", "=\(name):", "-F", "#{window_index} #{window_id}"]])
            plugin.restore.sessionCreated(named: name, on: runner)
            let first = output.split(separator: "\n").first?.split(separator: " ") ?? []
            let session = SessionObject(name: name, runner: runner, initialWindow: first.first.flatMap { Int($0) }, plugin: plugin)
            session.initialWindowID = first.dropFirst().first.map(String.init).flatMap { $0.hasPrefix("@") ? $0 : nil }
            plugin.restore.sessionMade(session, at: path)
            return session
        } catch {
            plugin.context.log("\(path.identifiers[0]): cannot restore session \(name): \(error)", level: .error)
            return nil
        }
    }

    func finishedRestoringState() {
        guard let runner else { return }
        // Windows are made in their own finishedRestoringState, which may
        // come after this one: these run once all of them did. The last and
        // active windows are selected by index, before any window goes; the
        // window tmux made with the session, when no saved one took it, goes
        // last, by its id (with renumber-windows on, an index would name
        // another window once one went).
        let selecting = [lastWindow, activeWindow].compactMap { $0?.index }.map { ["select-window", "-t", "\(target)\($0)"] }
        let ending = reusedInitialWindow ? nil : initialWindowID ?? initialWindow.map { "\(target)\($0)" }
        plugin?.restore.sessionFinishes(self, runner: runner, selecting: selecting, ending: ending)
    }
}
