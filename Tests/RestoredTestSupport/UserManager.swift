import Foundation
import ProcFiles
import RestoredDBus
import RestoredTesting

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

    /// How long a manager may take to start before it is given up: the
    /// first is started again once (see ``init(environment:)``).
    static let startLimit: Duration = .seconds(120)
    static let firstStartLimit: Duration = .seconds(60)

    /// Whether a user manager can run here: root, `unshare` and systemd installed.
    public static var isAvailable: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") && FileManager.default.isExecutableFile(atPath: "/lib/systemd/systemd")
    }

    /// Starts a manager whose environment has `environment` added, and
    /// waits until it says it is running (`SystemState`; `is-system-running` answers `offline` outside its namespace, where the machine does not look booted with systemd).
    ///
    /// With many managers starting at once on two loaded cores (every
    /// suite runs in parallel), one in a few hundred never answered, its
    /// bus silent for minutes. A manager that is not up within
    /// ``firstStartLimit`` is stopped, and a fresh one (its own directory
    /// and cgroup) gets ``startLimit``; the error names both attempts, with
    /// the end of each one's log (the manager logs to it: `--log-target=console`).
    public init(environment extra: [String: String] = [:]) async throws {
        var failures: [String] = []
        for limit in [Self.firstStartLimit, Self.startLimit] {
            switch await Self.launch(environment: extra, limit: limit) {
            case .success(let launched):
                (directory, cgroup, process) = launched
                return
            case .failure(let failure):
                failures.append(failure.description)
            }
        }
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: failures.joined(separator: "; then ")])
    }

    /// Why one start of a manager failed.
    private struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts one manager in a new directory and cgroup and waits up to
    /// `limit` for it; a manager that does not come up is stopped and removed.
    private static func launch(environment extra: [String: String], limit: Duration) async -> Result<(String, String, ChildProcess), StartFailure> {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restored-user-manager-\(UUID().uuidString)").path
        let cgroup = "restored-test-\(UUID().uuidString)"
        let home = directory + "/home", runtime = directory + "/runtime"
        do {
            for path in [runtime, home + "/.config/systemd/user"] {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
        } catch {
            return .failure(StartFailure(description: "its directory could not be made: \(error)"))
        }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DBUS_") && $0.key != "NOTIFY_SOCKET" && $0.key != "INVOCATION_ID" }
        environment.merge(userDirectories(home: home, runtime: runtime)) { _, new in new }
        environment.merge(extra) { _, new in new }
        // Into its own cgroups first (a controller that will not take the
        // process, such as cpuset, is left as it is), then its own mount
        // namespace, where it looks booted with systemd.
        let script = """
            for hierarchy in "$@"; do
                mkdir -p "$hierarchy/$0" 2>/dev/null && echo $$ > "$hierarchy/$0/cgroup.procs" 2>/dev/null
            done
            exec /usr/bin/unshare -m /bin/sh -c 'mkdir -p /run/systemd && mount -t tmpfs tmpfs /run/systemd && mkdir /run/systemd/system && exec /lib/systemd/systemd --user --log-target=console'
            """
        let process: ChildProcess
        do {
            process = try ChildProcess("/bin/sh", ["-c", script, cgroup] + hierarchies, environment: environment, log: directory + "/manager.log")
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            return .failure(StartFailure(description: "it could not be started: \(error)"))
        }
        let client = clientEnvironment(home: home, runtime: runtime)
        let deadline = ContinuousClock.now + limit
        // Up is `running`, or `degraded`: a unit of the machine's failed (a
        // default user service Debian installs that cannot start here, or
        // not in time on a loaded machine), which no test of restored needs.
        // Then its bus (socket-activated) and the manager's name on it,
        // which clients such as restored look for.
        var state: String?
        var failure: String?
        while !isUp(state) {
            state = try? await CompletedCommand.run("/bin/systemctl", ["--user", "show", "--property", "SystemState", "--value"], environment: client, in: URL(fileURLWithPath: directory)).output
            if isUp(state) { break }
            guard ContinuousClock.now < deadline else {
                let seen = state.map { "its state: \($0.trimmingCharacters(in: .whitespacesAndNewlines))" } ?? "systemctl could not reach it"
                failure = "systemd --user did not come up within \(limit) (\(seen))"
                break
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        while failure == nil, await ownsManagerName("unix:path=\(runtime)/bus") == false {
            guard ContinuousClock.now < deadline else {
                failure = "systemd --user did not own org.freedesktop.systemd1 on its bus within \(limit)"
                break
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        guard let failure else { return .success((directory, cgroup, process)) }
        let log = (try? String(contentsOfFile: directory + "/manager.log", encoding: .utf8)) ?? ""
        let end = log.split(separator: "\n", omittingEmptySubsequences: false).suffix(30).joined(separator: "\n")
        cleanUp(process: process, cgroup: cgroup, directory: directory, client: client)
        return .failure(StartFailure(description: "\(failure); the end of its log: \(end)"))
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
    public var clientEnvironment: [String: String] { Self.clientEnvironment(home: home, runtime: runtimeDirectory) }

    private static func clientEnvironment(home: String, runtime: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(userDirectories(home: home, runtime: runtime)) { _, new in new }
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(runtime)/bus"
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
    public var processes: [Int32] { Self.processes(inCgroup: cgroup) }

    private static func processes(inCgroup cgroup: String) -> [Int32] {
        guard let hierarchy = hierarchies.first(where: { $0.hasSuffix("/systemd") || $0 == "/sys/fs/cgroup" }) else { return [] }
        return ControlGroup.processes(under: hierarchy + "/" + cgroup)
    }

    /// Asks the manager to exit, as a logout does (every unit stopped
    /// together), and waits up to `timeout` for it to be gone.
    public func exit(timeout: Duration = .seconds(30)) async throws {
        try await systemctl(["exit"])
        let deadline = ContinuousClock.now + timeout
        while kill(process.pid, 0) == 0, ProcProcess.state(of: process.pid) != "Z", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Stops the manager and everything left in its cgroups, by pid, and
    /// removes its cgroups and directories.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        Self.cleanUp(process: process, cgroup: cgroup, directory: directory, client: clientEnvironment)
    }

    /// Stops a manager and everything left in its cgroups, by pid, and
    /// removes its cgroups and directory.
    private static func cleanUp(process: ChildProcess, cgroup: String, directory: String, client: [String: String]) {
        _ = try? CompletedCommand.runNow("/bin/systemctl", ["--user", "exit"], environment: client, in: URL(fileURLWithPath: directory))
        let deadline = ContinuousClock.now + .seconds(10)
        while kill(process.pid, 0) == 0, ProcProcess.state(of: process.pid) != "Z", ContinuousClock.now < deadline { usleep(50_000) }
        for _ in 0 ..< 3 {
            let left = processes(inCgroup: cgroup)
            if left.isEmpty { break }
            for pid in left { kill(pid, SIGKILL) }
            usleep(100_000)
        }
        process.stop()
        // A cgroup whose last process is still exiting is busy for a moment.
        for _ in 0 ..< 20 {
            let left = hierarchies.map { $0 + "/" + cgroup }.filter { FileManager.default.fileExists(atPath: $0) }
            if left.isEmpty { break }
            for path in left { removeTree(path) }
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
