import Foundation
import RestoredDBus

/// A real systemd user manager (`systemd --user`) for one test, where the
/// real behaviour matters: unit files as installed, `Type=notify`, the
/// sandbox really applied, transient units, `systemctl --user stop`, the
/// whole manager exiting as at logout.
///
/// PID 1 here is not systemd, and systemd refuses `--user` unless the
/// machine looks booted with it: the manager runs in a mount namespace of
/// its own (`unshare -m`) with a tmpfs on `/run/systemd` holding an empty
/// `/run/systemd/system`, with a private `XDG_RUNTIME_DIR` (its bus is
/// socket-activated at `$XDG_RUNTIME_DIR/bus`) and `HOME`.
///
/// It starts in a cgroup made for it in every hierarchy it may write (its
/// name `restored-test-<uuid>`): a user manager takes the cgroup it starts
/// in as its own and moves what is there into its `init.scope`, so started
/// in the machine's root cgroup it would take the machine's processes.
/// ``stop()`` asks it to exit (as a logout does), kills by pid whatever is
/// left in its cgroup, and removes the cgroups and the directories.
public final class UserManager {
    /// The test's directory: `runtime/` (XDG_RUNTIME_DIR), `home/`, logs.
    public let directory: String
    /// `XDG_RUNTIME_DIR` of the manager.
    public var runtimeDirectory: String { directory + "/runtime" }
    /// `HOME` of the manager.
    public var home: String { directory + "/home" }
    /// The address of its session bus.
    public var busAddress: String { "unix:path=\(runtimeDirectory)/bus" }
    /// Where user units go (`$XDG_CONFIG_HOME/systemd/user`).
    public var unitDirectory: String { home + "/.config/systemd/user" }
    private let process: ChildProcess
    private let cgroup: String
    private var stopped = false

    /// The cgroup hierarchies of this machine (`/sys/fs/cgroup/NAME` of a
    /// hybrid layout, or `/sys/fs/cgroup` itself when unified).
    static var hierarchies: [String] {
        let root = "/sys/fs/cgroup"
        if FileManager.default.fileExists(atPath: root + "/cgroup.procs") { return [root] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted().map { root + "/" + $0 }
            .filter { FileManager.default.fileExists(atPath: $0 + "/cgroup.procs") }
    }

    /// How long a manager may take to start before the test gives up.
    static let startLimit: Duration = .seconds(120)

    /// Whether a user manager can run here: root, `unshare` and systemd installed.
    public static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") && FileManager.default.isExecutableFile(atPath: "/lib/systemd/systemd")
    }

    /// Starts a manager whose environment has `environment` added, and
    /// waits until it says it is running (`SystemState`; `is-system-running` answers `offline` outside its namespace, where the machine does not look booted with systemd).
    public init(environment extra: [String: String] = [:]) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("restored-user-manager-\(UUID().uuidString)").path
        cgroup = "restored-test-\(UUID().uuidString)"
        for path in [directory + "/runtime", directory + "/home/.config/systemd/user"] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DBUS_") && $0.key != "NOTIFY_SOCKET" && $0.key != "INVOCATION_ID" }
        environment.merge(Self.userDirectories(home: directory + "/home", runtime: directory + "/runtime")) { _, new in new }
        environment.merge(extra) { _, new in new }
        // Into its own cgroups first (a controller that will not take the
        // process, such as cpuset, is left as it is), then its own mount
        // namespace, where it looks booted with systemd.
        let script = """
            for hierarchy in "$@"; do
                mkdir -p "$hierarchy/$0" 2>/dev/null && echo $$ > "$hierarchy/$0/cgroup.procs" 2>/dev/null
            done
            exec /usr/bin/unshare -m /bin/sh -c 'mkdir -p /run/systemd && mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system && exec /lib/systemd/systemd --user'
            """
        process = try ChildProcess("/bin/sh", ["-c", script, cgroup] + Self.hierarchies, environment: environment, log: directory + "/manager.log")
        // A hang guard: with many managers starting at once on two loaded
        // cores (every suite runs in parallel), one took more than 30 s.
        let deadline = ContinuousClock.now + Self.startLimit
        // Up is `running`, or `degraded`: a unit of the machine's failed (a
        // default user service Debian installs that cannot start here, or
        // not in time on a loaded machine), which no test of restored needs.
        var state: String?
        while true {
            state = try? await systemctl(["show", "--property", "SystemState", "--value"]).output
            if Self.isUp(state) { break }
            guard ContinuousClock.now < deadline else {
                let log = (try? String(contentsOfFile: directory + "/manager.log", encoding: .utf8)) ?? ""
                stop()
                let seen = state.map { "its state: \($0.trimmingCharacters(in: .whitespacesAndNewlines))" } ?? "systemctl could not reach it"
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "systemd --user did not come up within \(Self.startLimit) (\(seen)): \(log)"])
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        // Its bus (socket-activated) and the manager's name on it, which
        // clients such as restored look for.
        while await Self.ownsManagerName(busAddress) == false {
            guard ContinuousClock.now < deadline else {
                stop()
                throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "systemd --user did not own org.freedesktop.systemd1 on \(busAddress) within \(Self.startLimit)"])
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Whether a `SystemState` says the manager finished starting.
    static func isUp(_ state: String?) -> Bool {
        guard let state else { return false }
        return state.hasPrefix("running") || state.hasPrefix("degraded")
    }

    private static func ownsManagerName(_ address: String) async -> Bool {
        guard let connection = try? await DBusConnection.connect(to: .address(address)) else { return false }
        defer { connection.close() }
        return await connection.owner(of: "org.freedesktop.systemd1") != nil
    }

    deinit {
        stop()
    }

    /// Runs `systemctl --user ARGUMENTS` against this manager.
    @discardableResult
    public func systemctl(_ arguments: [String]) async throws -> CompletedCommand {
        try await CompletedCommand.run("/bin/systemctl", ["--user"] + arguments, environment: clientEnvironment, in: URL(fileURLWithPath: directory))
    }

    /// What a client of this manager runs with: its runtime directory,
    /// bus and user directories.
    public var clientEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(Self.userDirectories(home: home, runtime: runtimeDirectory)) { _, new in new }
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        return environment
    }

    /// `HOME`, `XDG_RUNTIME_DIR` and the XDG base directories, all named:
    /// programs that fall back on the user database (dbus-daemon looks for
    /// `~/.local/share/dbus-1/services` under the passwd entry's home, not
    /// `$HOME`) must find the test's, never root's.
    static func userDirectories(home: String, runtime: String) -> [String: String] {
        [
            "HOME": home, "XDG_RUNTIME_DIR": runtime, "XDG_DATA_HOME": home + "/.local/share",
            "XDG_CONFIG_HOME": home + "/.config", "XDG_STATE_HOME": home + "/.local/state", "XDG_CACHE_HOME": home + "/.cache",
        ]
    }

    /// The process ids in the manager's cgroup tree (systemd's own hierarchy).
    public var processes: [Int32] {
        guard let hierarchy = Self.hierarchies.first(where: { $0.hasSuffix("/systemd") || $0 == "/sys/fs/cgroup" }) else { return [] }
        return Self.processes(under: hierarchy + "/" + cgroup)
    }

    private static func processes(under path: String) -> [Int32] {
        let own = ((try? String(contentsOfFile: path + "/cgroup.procs", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            .flatMap { name -> [Int32] in
                var isDirectory: ObjCBool = false
                return FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory) && isDirectory.boolValue ? processes(under: path + "/" + name) : []
            }
        return own + children
    }

    /// Asks the manager to exit, as a logout does (every unit stopped
    /// together), and waits up to `timeout` for it to be gone.
    public func exit(timeout: Duration = .seconds(30)) async throws {
        try await systemctl(["exit"])
        let deadline = ContinuousClock.now + timeout
        while kill(process.pid, 0) == 0, ProcessFacts.state(of: process.pid) != "Z", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Stops the manager and everything left in its cgroups, by pid, and
    /// removes its cgroups and directories.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        _ = try? CompletedCommand.runNow("/bin/systemctl", ["--user", "exit"], environment: clientEnvironment, in: URL(fileURLWithPath: directory))
        let deadline = ContinuousClock.now + .seconds(10)
        while kill(process.pid, 0) == 0, ProcessFacts.state(of: process.pid) != "Z", ContinuousClock.now < deadline { usleep(50_000) }
        for _ in 0 ..< 3 {
            let left = processes
            if left.isEmpty { break }
            for pid in left { kill(pid, SIGKILL) }
            usleep(100_000)
        }
        process.stop()
        // A cgroup whose last process is still exiting is busy for a moment.
        for _ in 0 ..< 20 {
            let left = Self.hierarchies.map { $0 + "/" + cgroup }.filter { FileManager.default.fileExists(atPath: $0) }
            if left.isEmpty { break }
            for path in left { Self.removeTree(path) }
            usleep(100_000)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Removes the cgroup `path` and its children, deepest first.
    private static func removeTree(_ path: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory), isDirectory.boolValue { removeTree(path + "/" + name) }
        }
        rmdir(path)
    }
}
