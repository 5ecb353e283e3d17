import Foundation
import Glibc
import ProcessSpawning
import RestoredDBus
import RestoredTesting
import Synchronization
import SystemPackage
import SystemSupport

/// Starts and stops the run's restored, on the private bus: as a child of
/// the harness, or (`--sandbox`) as a transient service of the user's
/// manager with the installed unit's hardening.
///
/// A start is done when restored owns `org.restored1` and has left its
/// `starting` and `restoring` phases (its login restore is over, or
/// restored stopped waiting for it). A stop is a logout's: SIGTERM to
/// restored alone (`systemctl --user stop` under the unit's
/// `KillMode=mixed`), so its plugin hosts live through its last save.
final class DaemonRunner: Sendable {
    /// How restored is run.
    enum Mode: Sendable {
        /// A child of the harness, in a process group of its own.
        case plain
        /// A transient service of the user manager, with these properties.
        case sandboxed(UserManager, SandboxProperties)
    }

    /// What runs now.
    private enum Running: Sendable {
        case child(ChildProcess)
        case unit(String)
    }

    /// restored's bus name.
    static let busName = "org.restored1"

    /// How long restored may take to stop: the unit's `TimeoutStopSec` of 20 s.
    static let stopBudget = Duration.seconds(20)

    private let executable: String
    private let arguments: [String]
    private let environment: [String: String]
    private let mode: Mode
    private let bus: PrivateBusDaemon
    private let running = Mutex<Running?>(nil)

    /// A runner of `executable` with `arguments` (without its name) and
    /// `environment`, on `bus`.
    init(executable: String, arguments: [String], environment: [String: String], mode: Mode, bus: PrivateBusDaemon) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.mode = mode
        self.bus = bus
    }

    /// The transient unit restored runs in, under `--sandbox`.
    var unit: String? {
        running.withLock { running in
            if case .unit(let name)? = running { return name }
            return nil
        }
    }

    /// Starts restored, its output going to `log`, and waits (at most
    /// `budget`) until it owns its name and its start's restore is over;
    /// returns its pid.
    func start(log: String, budget: Duration) async throws(PluginTestError) -> Int32 {
        let deadline = ContinuousClock.now + budget
        switch mode {
        case .plain:
            let output = try RunDirectory.createFile(log)
            defer { try? output.close() }
            do {
                let child = try ChildProcess.spawn(
                    FilePath(executable), arguments: ["restored"] + arguments, environment: environment,
                    options: SpawnOptions(input: .null, output: .descriptor(output), errors: .descriptor(output), ownProcessGroup: true)
                )
                running.withLock { $0 = .child(child) }
            } catch {
                throw .daemonDidNotStart(reason: "cannot run \(executable) (\(error))")
            }
        case .sandboxed(let manager, let properties):
            let unit = UserManager.unitName(prefix: "restored-plugin-test")
            try? RunDirectory.createFile(log).close()
            running.withLock { $0 = .unit(unit) }
            try await manager.startTransient(
                ["--unit=\(unit)", "--collect", "--description=restored under test (restored-plugin-test)",
                 "--property=Type=exec", "--property=StandardOutput=append:\(log)", "--property=StandardError=append:\(log)"]
                    + properties.propertyArguments + UserManager.setenvArguments(environment)
                    + [executable] + arguments.map(UserManager.literal)
            )
        }
        let connection: DBusConnection
        do {
            connection = try await DBusConnection.connect(to: .address(bus.address), within: .seconds(5))
        } catch {
            throw .daemonDidNotStart(reason: "the private bus does not answer (\(error.message))")
        }
        defer { connection.close() }
        while await connection.owner(of: Self.busName) == nil {
            if let ended = await endedEarly() { throw .daemonDidNotStart(reason: "\(ended) before it owned \(Self.busName)") }
            guard ContinuousClock.now < deadline else { throw .daemonDidNotStart(reason: "it did not own \(Self.busName) within \(budget)") }
            await Self.pause()
        }
        while let state = await Self.state(on: connection), state == "starting" || state == "restoring", ContinuousClock.now < deadline {
            await Self.pause()
        }
        guard let pid = await mainPID() else { throw .daemonDidNotStart(reason: "it ended while it started") }
        return pid
    }

    /// restored's pid, while it runs.
    func mainPID() async -> Int32? {
        switch running.withLock({ $0 }) {
        case .child(let child)?:
            return child.reapIfExited() == nil ? child.pid : nil
        case .unit(let unit)?:
            guard case .sandboxed(let manager, _) = mode, let pid = await manager.property("MainPID", of: unit).flatMap({ Int32($0) }), pid > 0 else { return nil }
            return pid
        case nil:
            return nil
        }
    }

    /// How restored ended, if it did while starting.
    private func endedEarly() async -> String? {
        switch running.withLock({ $0 }) {
        case .child(let child)?:
            return child.reapIfExited().map { "it \(Self.describe($0))" }
        case .unit(let unit)?:
            guard case .sandboxed(let manager, _) = mode else { return nil }
            let state = await manager.property("ActiveState", of: unit)
            return state == "active" || state == "activating" ? nil : "its unit \(unit) is \(state ?? "gone")"
        case nil:
            return "it is not running"
        }
    }

    /// Stops restored as a logout does, and waits for it; says how it
    /// ended (nil: as it should, exit status 0).
    func stop() async -> String? {
        switch running.withLock({ value in defer { value = nil }; return value }) {
        case .child(let child)?:
            _ = Glibc.kill(child.pid, SIGTERM)
            let ending = await OffPool.run { child.wait(until: .now + Self.stopBudget) }
            guard let ending else {
                child.reap(within: .zero)
                return "it did not exit within \(Self.stopBudget) of SIGTERM and was killed"
            }
            return ending == .exited(0) ? nil : "it \(Self.describe(ending))"
        case .unit(let unit)?:
            guard case .sandboxed(let manager, _) = mode else { return nil }
            guard let run = try? await manager.control(["stop", unit], timeout: Self.stopBudget + .seconds(10)) else {
                return "systemctl --user stop \(unit) did not finish"
            }
            return run.ending == .exited(0) ? nil : "systemctl --user stop \(unit): \(run.errorText)"
        case nil:
            return nil
        }
    }

    /// Ends restored at once (SIGKILL to it and, under `--sandbox`, its
    /// unit), from any thread: for an interrupted run.
    func kill() {
        switch running.withLock({ value in defer { value = nil }; return value }) {
        case .child(let child)?:
            child.reap(within: .zero)
        case .unit(let unit)?:
            guard case .sandboxed(let manager, _) = mode else { return }
            _ = try? ProgramRun.run(
                manager.systemctl, arguments: ["systemctl", "--user", "kill", "--signal=SIGKILL", unit], environment: manager.environment, timeout: .seconds(5)
            )
            _ = try? ProgramRun.run(manager.systemctl, arguments: ["systemctl", "--user", "stop", unit], environment: manager.environment, timeout: .seconds(10))
        case nil:
            return
        }
    }

    /// restored's phase (`Status`'s `State`), or nil when it does not answer.
    private static func state(on connection: DBusConnection) async -> String? {
        let reply = try? await connection.call(
            destination: busName, path: "/org/restored1", interface: "org.restored1.Manager", member: "Status", timeout: .seconds(5)
        )
        return reply?.first?.stringKeyedValue?["State"]?.stringValue
    }

    /// Waits a tenth of a second between two looks.
    static func pause() async {
        try? await Task.sleep(for: .milliseconds(100))
    }

    /// `ending` in words: `exited with status 1`, `was ended by signal 9`.
    static func describe(_ ending: ProcessEnding) -> String {
        switch ending {
        case .exited(let status): "exited with status \(status)"
        case .signaled(let signal): "was ended by signal \(signal)\(signal == SIGKILL ? " (SIGKILL)" : signal == SIGSEGV ? " (SIGSEGV)" : signal == SIGABRT ? " (SIGABRT)" : "")"
        }
    }
}
