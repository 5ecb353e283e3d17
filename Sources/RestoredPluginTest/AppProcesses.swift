import Glibc
import ProcessSpawning
import Synchronization
import SystemPackage
import SystemSupport

/// The app instances of `--start`: each a transient service of the user
/// manager when one answers (as a desktop starts apps, outside anything of
/// the harness), else a child of the harness in a process group of its
/// own. Their output goes to `app-N.log` in the run's directory.
///
/// A unit is `Type=exec` with `RemainAfterExit=yes`: a command that starts
/// a daemon and exits (`tmux new-session -d`) keeps its daemon, which ends
/// with the unit; `TimeoutStopSec=5s` turns the stop's SIGTERM into SIGKILL
/// after 5 s. A child gets SIGTERM to its process group, then SIGKILL
/// after 5 s; what it started in a session of its own is out of reach.
final class AppProcesses: Sendable {
    /// One started instance.
    private enum Instance: Sendable {
        case unit(String, CommandWords)
        case child(ChildProcess, CommandWords)
    }

    /// How long an app has between SIGTERM and SIGKILL.
    static let endBudget = Duration.seconds(5)

    private let manager: UserManager?
    private let environment: [String: String]
    private let directory: RunDirectory
    private let instances = Mutex<[Instance]>([])

    /// Apps started through `manager` (nil: as children) with `environment`.
    init(manager: UserManager?, environment: [String: String], directory: RunDirectory) {
        self.manager = manager
        self.environment = environment
        self.directory = directory
    }

    /// Whether any app was started.
    var isEmpty: Bool { instances.withLock { $0.isEmpty } }

    /// Starts `command`; returns where it runs, for people.
    func start(_ command: CommandWords) async throws(PluginTestError) -> String {
        let number = instances.withLock { $0.count + 1 }
        let log = directory.file("app-\(number).log")
        let executable = try command.executable(searchPath: ExecutableSearchPath.of(environment))
        if let manager {
            let unit = UserManager.unitName(prefix: "restored-plugin-test-app")
            try? RunDirectory.createFile(log).close()
            instances.withLock { $0.append(.unit(unit, command)) }
            try await manager.startTransient(
                ["--unit=\(unit)", "--collect", "--same-dir", "--description=app under test: \(command.text)",
                 "--property=Type=exec", "--property=RemainAfterExit=yes", "--property=TimeoutStopSec=5s",
                 "--property=StandardOutput=append:\(log)", "--property=StandardError=append:\(log)"]
                    + UserManager.setenvArguments(environment) + [executable] + command.words.dropFirst().map(UserManager.literal)
            )
            let pid = await manager.property("MainPID", of: unit).flatMap { Int32($0) } ?? 0
            return "unit \(unit)\(pid > 0 ? ", pid \(pid)" : "")"
        }
        let output = try RunDirectory.createFile(log)
        defer { try? output.close() }
        do {
            let child = try ChildProcess.spawn(
                FilePath(executable), arguments: command.words, environment: environment,
                options: SpawnOptions(input: .null, output: .descriptor(output), errors: .descriptor(output), ownProcessGroup: true)
            )
            instances.withLock { $0.append(.child(child, command)) }
            return "pid \(child.pid), a child of this program (no user manager)"
        } catch {
            throw .cannotRun(command: command.text, reason: "\(error)")
        }
    }

    /// Ends every app (SIGTERM, SIGKILL after 5 s) and returns a line for
    /// each child that had to be killed and each process still alive afterwards.
    func end() async -> [String] {
        let all = instances.withLock { value in defer { value = [] }; return value }
        var watched: [(ProcessRecord, CommandWords)] = []
        var units: [String] = []
        var children: [(ChildProcess, CommandWords)] = []
        var lines: [String] = []
        for instance in all {
            switch instance {
            case .unit(let unit, let command):
                units.append(unit)
                for pid in await manager?.processes(of: unit) ?? [] { watched.append((ProcessRecord(pid: pid), command)) }
            case .child(let child, let command):
                children.append((child, command))
            }
        }
        if let manager, !units.isEmpty {
            let began = ContinuousClock.now
            _ = try? await manager.control(["stop"] + units, timeout: Self.endBudget + .seconds(10))
            if ContinuousClock.now - began >= Self.endBudget {
                lines.append("an app of --start did not end within \(Self.endBudget) of SIGTERM, and the user manager killed it (\(units.joined(separator: ", ")))")
            }
        }
        for (child, command) in children {
            let group = ProcessRecord.all().filter { $0.processGroup == child.pid }
            watched += group.map { ($0, command) }
            _ = Glibc.kill(-child.pid, SIGTERM)
            let deadline = ContinuousClock.now + Self.endBudget
            let killed = await OffPool.run { () -> Bool in
                _ = child.wait(until: deadline)
                while group.contains(where: \.isAlive) && ContinuousClock.now < deadline { usleep(50_000) }
                guard child.reapIfExited() == nil || group.contains(where: \.isAlive) else { return false }
                _ = Glibc.kill(-child.pid, SIGKILL)
                child.reap(within: .seconds(1))
                return true
            }
            if killed { lines.append("--start '\(command.text)' (pid \(child.pid)) did not end within \(Self.endBudget) of SIGTERM and was killed") }
        }
        try? await Task.sleep(for: .milliseconds(100))
        return lines + watched.filter { $0.0.isAlive }.map { record, command in "\(record) of --start '\(command.text)' is still alive" }
    }

    /// Ends every app at once, from any thread: for an interrupted run.
    func kill() {
        let all = instances.withLock { value in defer { value = [] }; return value }
        let units = all.compactMap { instance -> String? in
            if case .unit(let unit, _) = instance { return unit }
            return nil
        }
        if let manager, !units.isEmpty {
            _ = try? ProgramRun.run(manager.systemctl, arguments: ["systemctl", "--user", "kill", "--signal=SIGKILL"] + units, environment: manager.environment, timeout: .seconds(5))
            _ = try? ProgramRun.run(manager.systemctl, arguments: ["systemctl", "--user", "stop"] + units, environment: manager.environment, timeout: .seconds(10))
        }
        for instance in all {
            if case .child(let child, _) = instance {
                _ = Glibc.kill(-child.pid, SIGKILL)
                child.reap(within: .seconds(1))
            }
        }
    }
}
