import ArgumentParser
import Foundation
import ProcFiles
import RestoredTestSupport

/// `restored-bench idle`: how often an idle restored wakes, with and
/// without a desktop, early (inside the first two minutes after its start)
/// and late, for this build and, side by side in the same run, another.
struct IdleBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle",
        abstract: "Count an idle restored's wake-ups, with and without a desktop, early and late after its start, against another build.",
        discussion: """
            Every restored runs at once, each on private buses of its own with python3-dbusmock's \
            logind, with --apps copies of the synthetic plugin (each in its plugin host), systemd's \
            watchdog on as the unit sets it (WatchdogSec=30s: WATCHDOG_USEC=30000000, a ping every \
            15 s) and autosave off (its walks are measured by `restored-bench autosave`). With a \
            desktop: an X server of its own (Xvfb) in restored's DISPLAY, found at start. The \
            context switches of each of restored's threads are counted over two windows: from \
            --early-start to --early-start + --window seconds after its start, and from \
            --late-start on. libdispatch's event-manager thread (a workqueue monitor that ticks once \
            a second in every process that has used a dispatch worker thread) is counted apart, \
            with the idle workers it retires. --baseline names the build directory of another \
            build (restored, restored-plugin-host and libSyntheticPlugin.so in it), run beside this one.
            """
    )

    @Option(help: "Apps (copies of the synthetic plugin) each restored serves.")
    var apps = 10

    @Option(help: "Objects per app.")
    var objects = 100

    @Option(help: "Seconds of each window.")
    var window = 30

    @Option(help: "Seconds after start the early window begins.")
    var earlyStart = 15

    @Option(help: "Seconds after start the late window begins (after the first two minutes).")
    var lateStart = 135

    @Option(help: "The build directory of another build to run beside this one.")
    var baseline: String?

    /// One restored under measurement.
    struct Run {
        let build: String
        let desktop: Bool
        let bus: PrivateBus
        let logind: LogindMock
        let notify: NotifyListener
        let daemon: ChildProcess
        let display: VirtualDisplay?
        let drain: Task<Void, Never>
    }

    func run() async throws {
        guard earlyStart + window <= lateStart else { throw ValidationError("the early window must end before the late one starts") }
        var builds = [("this build", BuildProducts.directory)]
        if let baseline { builds.append(("baseline", baseline)) }
        print("idle benchmark: \(apps) apps, watchdog every 15 s, autosave off; wake-ups a minute of restored's own threads (+ libdispatch's event manager)")
        var runs: [Run] = []
        defer {
            for run in runs {
                run.daemon.stop()
                run.drain.cancel()
                run.notify.close()
                run.logind.stop()
                run.bus.stop()
            }
        }
        for (name, directory) in builds {
            for desktop in [false, true] {
                runs.append(try await start(build: name, directory: directory, desktop: desktop))
            }
        }
        let started = ContinuousClock.now
        let early = try await measure(runs, from: started + .seconds(earlyStart))
        let late = try await measure(runs, from: started + .seconds(lateStart))
        print("build       desktop  \(earlyStart)-\(earlyStart + window) s after start         \(lateStart)-\(lateStart + window) s after start")
        for (index, run) in runs.enumerated() {
            print("\(run.build.padding(10))  \((run.desktop ? "yes" : "no").padding(7))  \(early[index].padding(28))  \(late[index])")
        }
    }

    private func start(build: String, directory: String, desktop: Bool) async throws -> Run {
        let bus = try await PrivateBus.start()
        let logind = try await LogindMock.start(on: bus)
        let root = bus.directory.path
        let plugins = root + "/plugins", state = root + "/state"
        var arguments = ["--plugin-dir", plugins, "--state-dir", state, "--log-level", "warning", "--autosave-interval", "0",
                         "--plugin-host", directory + "/restored-plugin-host"]
        for path in [plugins, state] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        for index in 0..<apps {
            try FileManager.default.copyItem(atPath: directory + "/libSyntheticPlugin.so", toPath: plugins + "/libSyntheticPlugin-\(index).so")
            arguments += ["--option", "org.restored.bench.Synthetic\(index):objects=\(objects)"]
        }
        let display = desktop ? try VirtualDisplay(log: root + "/xvfb.log") : nil
        let notify = try NotifyListener(path: root + "/notify")
        var environment = ProcessInfo.processInfo.environment.filter { !["DISPLAY", "WAYLAND_DISPLAY", "JOURNAL_STREAM", "WATCHDOG_PID"].contains($0.key) }
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        environment["NOTIFY_SOCKET"] = notify.address
        environment["WATCHDOG_USEC"] = "30000000"
        environment["XDG_RUNTIME_DIR"] = root
        if let display { environment["DISPLAY"] = display.display }
        let daemon = try ChildProcess(directory + "/restored", arguments, environment: environment, log: root + "/restored.log")
        // The notify socket is read for the life of the run, as systemd
        // reads it; by this task alone.
        nonisolated(unsafe) let reader = notify
        let drain = Task {
            while !Task.isCancelled { _ = try? await reader.receiveOffPool(timeout: 1_000) }
        }
        return Run(build: build, desktop: desktop, bus: bus, logind: logind, notify: notify, daemon: daemon, display: display, drain: drain)
    }

    /// The wake-ups a minute of each run over `window` seconds from `start`.
    private func measure(_ runs: [Run], from start: ContinuousClock.Instant) async throws -> [String] {
        try await Task.sleep(until: start, clock: .continuous)
        let before = try runs.map { try SuspendBenchmark.contextSwitches(of: $0.daemon.pid) }
        try await Task.sleep(for: .seconds(window))
        return try runs.enumerated().map { index, run in
            let counts = SuspendBenchmark.wakeups(from: before[index], to: try SuspendBenchmark.contextSwitches(of: run.daemon.pid))
            let perMinute = { (count: Int) in String(format: "%.1f", Double(count) * 60 / Double(window)) }
            return "\(perMinute(counts.restored)) (+ \(perMinute(counts.dispatchManager)))"
        }
    }
}
