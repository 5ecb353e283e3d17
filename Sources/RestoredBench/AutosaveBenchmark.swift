import ArgumentParser
import Foundation
import ProcFiles
import Glibc
import RestoredTestSupport
import SystemPackage
import TmuxControl

/// `restored-bench autosave`: what autosave costs with the installed plugins
/// (tmux and the session's apps) on a session of a tmux server and ten
/// apps, per autosave round and per hour.
struct AutosaveBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "autosave",
        abstract: "Measure what autosave costs: CPU, wake-ups and bytes written, unchanged and changing.",
        discussion: """
            The real restored on a private bus (python3-dbusmock's logind), with the built tmux and \
            session plugins, a private tmux server of --sessions sessions of 4 windows, --apps running \
            apps with desktop entries, and an Xvfb display. Three runs of --seconds each, each with a \
            fresh restored: autosave off (the baseline), autosave every --interval seconds with nothing \
            changing, and the same with a tmux window renamed before every round. Measured from /proc: \
            CPU time of restored and its plugin hosts, their context switches (wake-ups), and the bytes \
            restored wrote to disk. The cost of one round is the difference to the baseline divided by \
            the rounds; per hour for an interval I it is that times 3600 / I.
            """
    )

    @Option(help: "tmux sessions (4 windows each).")
    var sessions = 5
    @Option(help: "Running apps of the session plugin.")
    var apps = 10
    @Option(help: "Seconds between autosaves in the measured runs.")
    var interval = 5
    @Option(help: "Seconds each run is measured.")
    var seconds = 60

    func run() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("restored-bench-autosave-\(getpid())").path
        try FileManager.default.createDirectory(atPath: root + "/tmux-\(getuid())", withIntermediateDirectories: true)
        chmod(root + "/tmux-\(getuid())", 0o700)
        defer { try? FileManager.default.removeItem(atPath: root) }
        var environment = ProcessInfo.processInfo.environment
        environment["TMUX_TMPDIR"] = root
        environment["SHELL"] = "/bin/sh"
        environment["HOME"] = root
        environment.removeValue(forKey: "TMUX")
        guard let tmux = TmuxRunner(socket: FilePath(root + "/tmux-\(getuid())/default"), environment: environment) else {
            throw BenchmarkFailure("tmux is not installed; scripts/setup installs it")
        }
        defer { _ = try? tmux.run(["kill-server"]) }
        for session in 0..<sessions {
            _ = try tmux.run(["new-session", "-d", "-s", "s\(session)"])
            for window in 1..<4 { _ = try tmux.run(["new-window", "-d", "-t", "=s\(session):", "-n", "w\(window)"]) }
        }
        // The session's apps: copies of sleep, each with a desktop entry.
        for directory in [root + "/bin", root + "/share/applications"] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        var running: [ChildProcess] = []
        defer { running.forEach { $0.stop() } }
        environment["XDG_DATA_DIRS"] = root + "/share"
        environment["XDG_DATA_HOME"] = root + "/data-home"
        for index in 0..<apps {
            let program = root + "/bin/bench-app-\(index)"
            try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: program)
            try "[Desktop Entry]\nType=Application\nName=App \(index)\nExec=\(program) 100000\n"
                .write(toFile: root + "/share/applications/org.restored.bench.App\(index).desktop", atomically: true, encoding: .utf8)
            running.append(try ChildProcess(program, ["100000"], environment: environment, log: root + "/app-\(index).log"))
        }
        let display = try VirtualDisplay(log: root + "/xvfb.log")
        environment["DISPLAY"] = display.display

        print("autosave benchmark: a tmux server of \(sessions) sessions × 4 windows and \(apps) apps; \(seconds) s per run, autosave every \(interval) s")
        let baseline = try await measure(autosave: nil, changing: false, root: root, environment: environment, tmux: tmux)
        let unchanged = try await measure(autosave: interval, changing: false, root: root, environment: environment, tmux: tmux)
        let changing = try await measure(autosave: interval, changing: true, root: root, environment: environment, tmux: tmux)
        let rounds = Double(seconds / interval)
        print("run                         CPU ms   wake-ups   bytes written")
        for (name, sample) in [("autosave off (baseline)", baseline), ("autosave, nothing changes", unchanged), ("autosave, tmux changes", changing)] {
            print("\(name.padding(26))  \(String(format: "%7.1f", sample.cpuMilliseconds))   \(String(format: "%8d", sample.wakeups))   \(String(format: "%13d", sample.bytesWritten))")
        }
        print("")
        print("per round (less the baseline)   CPU ms   wake-ups   bytes written")
        for (name, sample) in [("nothing changes", unchanged), ("tmux changes", changing)] {
            let cpu = (sample.cpuMilliseconds - baseline.cpuMilliseconds) / rounds
            let wakeups = Double(sample.wakeups - baseline.wakeups) / rounds
            let bytes = Double(sample.bytesWritten - baseline.bytesWritten) / rounds
            print("\(name.padding(30))  \(String(format: "%6.1f", cpu))   \(String(format: "%8.1f", wakeups))   \(String(format: "%13.0f", bytes))")
        }
        print("")
        print("per hour at an interval of      CPU s (changing)   wake-ups/min (changing)   MiB written (changing)")
        for every in [15, 60, 300] {
            let perHour = 3600 / Double(every)
            let cpu = (changing.cpuMilliseconds - baseline.cpuMilliseconds) / rounds * perHour / 1000
            let wakeups = Double(changing.wakeups - baseline.wakeups) / rounds * perHour / 60
            let bytes = Double(changing.bytesWritten - baseline.bytesWritten) / rounds * perHour / 1_048_576
            let idleCPU = (unchanged.cpuMilliseconds - baseline.cpuMilliseconds) / rounds * perHour / 1000
            print("\("\(every) s".padding(30))  \(String(format: "%5.2f (idle %5.2f)", cpu, idleCPU))   \(String(format: "%8.1f", wakeups))                  \(String(format: "%6.2f", bytes))")
        }
    }

    /// What one run cost.
    struct Sample {
        var cpuMilliseconds: Double
        var wakeups: Int
        var bytesWritten: Int
    }

    private func measure(autosave: Int?, changing: Bool, root: String, environment: [String: String], tmux: TmuxRunner) async throws -> Sample {
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let logind = try await LogindMock.start(on: bus)
        defer { logind.stop() }
        let run = bus.directory.path
        let plugins = run + "/plugins", state = run + "/state"
        for directory in [plugins, state] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        for plugin in ["TmuxPlugin", "SessionPlugin"] {
            try FileManager.default.createSymbolicLink(atPath: plugins + "/lib\(plugin).so", withDestinationPath: BuildProducts.plugin(plugin))
        }
        let notify = try NotifyListener(path: run + "/notify")
        defer { notify.close() }
        let launcher = SuspendBenchmark.Launcher(
            bus: bus, notify: notify, arguments: ["--plugin-dir", plugins, "--log-level", "warning", "--autosave-interval", String(autosave ?? 0)], environment: environment
        )
        let (daemon, _) = try await launcher.start(state: state, log: "restored.log")
        defer { daemon.stop() }
        // Every app saved once, as the first autosave would; then a quiet second.
        let client = try await bus.connect()
        defer { client.close() }
        _ = try await client.call(destination: "org.restored1", path: "/org/restored1", interface: "org.restored1.Manager", member: "Save", arguments: [.strings([])])
        try await Task.sleep(for: .seconds(1))
        let processes = [daemon.pid] + SuspendBenchmark.children(of: daemon.pid)
        let before = try processes.map(Self.reading)
        let start = ContinuousClock.now
        var round = 0
        while ContinuousClock.now - start < .seconds(seconds) {
            if changing {
                _ = try tmux.run(["rename-window", "-t", "=s0:0", "renamed-\(round)"])
                round += 1
            }
            try await Task.sleep(for: .seconds(autosave ?? interval))
        }
        let after = try processes.map(Self.reading)
        guard await daemon.terminated(timeout: .seconds(30)) == 0 else { throw BenchmarkFailure("restored did not stop cleanly; see \(run)") }
        var sample = Sample(cpuMilliseconds: 0, wakeups: 0, bytesWritten: 0)
        for (first, last) in zip(before, after) {
            sample.cpuMilliseconds += last.cpuMilliseconds - first.cpuMilliseconds
            sample.wakeups += last.switches - first.switches
        }
        sample.bytesWritten = after[0].written - before[0].written
        return sample
    }

    /// One process's CPU time, context switches (all its threads) and bytes written.
    struct Reading {
        var cpuMilliseconds: Double
        var switches: Int
        var written: Int
    }

    static func reading(_ pid: Int32) throws -> Reading {
        guard let used = ProcAccounting.cpuTicks(of: pid) else { throw BenchmarkFailure("cannot read /proc/\(pid)/stat") }
        let cpu = Double(used) / Double(sysconf(Int32(_SC_CLK_TCK))) * 1000
        let switches = try SuspendBenchmark.contextSwitches(of: pid).values.reduce(0) { $0 + $1.count }
        let written = try SuspendBenchmark.kibField("write_bytes", inFile: "io", of: pid)
        return Reading(cpuMilliseconds: cpu, switches: switches, written: written)
    }
}
