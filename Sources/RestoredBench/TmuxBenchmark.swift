import ArgumentParser
import Foundation
import ProcFiles
import Glibc
import Logging
import RestoredArchive
import RestoredEngine
import ProcessSpawning
import UnitLaunching
import SystemPackage
import TmuxControl

/// `restored-bench tmux`: the tmux plugin's save and restore of a large
/// environment, against the bare tmux commands that read and build it.
struct TmuxBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tmux",
        abstract: "Time the tmux plugin's save and restore against the bare tmux commands.",
        discussion: """
            A private tmux server (its own TMUX_TMPDIR) gets SESSIONS sessions of WINDOWS windows of \
            PANES panes each. Save: the preservation walk of the built tmux plugin, loaded with dlopen \
            (reading the server, finding each pane's program, encoding), against one bare tmux call \
            listing the sessions, windows and panes. Restore: the server is killed, then the \
            restoration walk brings it all back (started detached: no user manager here), against one \
            bare tmux call per session building the same sessions, windows and panes. Medians of --rounds rounds; \
            every restore is checked to bring back every pane.
            """
    )

    @Option(help: "Sessions.")
    var sessions = 10
    @Option(help: "Windows per session.")
    var windows = 10
    @Option(help: "Panes per window.")
    var panes = 4
    @Option(help: "Rounds; the median is reported.")
    var rounds = 5
    @Option(name: .customLong("plugin-dir"), help: "Where libTmuxPlugin.so is (default: beside this program).")
    var pluginDirectory: String?

    func run() throws {
        let logger = InProcessWalks.logger()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("restored-bench-tmux-\(getpid())").path
        let socketDirectory = root + "/tmux-\(getuid())"
        try FileManager.default.createDirectory(atPath: socketDirectory, withIntermediateDirectories: true)
        chmod(socketDirectory, 0o700)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // The plugin reads its environment when it is created: a private
        // TMUX_TMPDIR, and no session bus (servers are started detached).
        setenv("TMUX_TMPDIR", root, 1)
        // Panes run a small shell and no user configuration, so the numbers
        // are tmux's and the plugin's, not a login shell's start-up.
        setenv("SHELL", "/bin/sh", 1)
        setenv("HOME", root, 1)
        unsetenv("DBUS_SESSION_BUS_ADDRESS")
        unsetenv("TMUX")
        let environment = ProcessInfo.processInfo.environment
        guard let runner = TmuxRunner(socket: FilePath(socketDirectory + "/default"), environment: environment, timeout: .seconds(60)) else {
            throw BenchmarkFailure("tmux is not installed; scripts/setup installs it")
        }
        defer { _ = try? runner.run(["kill-server"]) }

        let plugin = try BuiltPlugin.load("TmuxPlugin", directory: pluginDirectory, logger: logger)
        let engine = InProcessWalks.engine(logger: logger)
        let build = buildCommands(root: root)
        let list = TmuxSnapshot.readCommands(in: .quoted)
        let expectedPanes = sessions * windows * panes

        var bareBuild: [Duration] = []
        var bareRead: [Duration] = []
        var save: [Duration] = []
        var restore: [Duration] = []
        var archiveBytes = 0
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            Self.kill(runner)
            bareBuild.append(try clock.measure { for call in build { _ = try runner.run(commands: call) } })
            Self.settle()
            bareRead.append(try clock.measure { _ = try runner.run(commands: list) })

            let saving = try plugin.makeSession(options: [:], logger: logger)
            var archive: Archive?
            save.append(clock.measure { archive = engine.makeArchive(of: saving).archive })
            guard let archive, archive.objects.count >= expectedPanes else {
                throw BenchmarkFailure("the save kept \(archive?.objects.count ?? 0) objects for \(expectedPanes) panes")
            }
            archiveBytes = ArchiveCodec.encode(archive).count

            Self.kill(runner)
            let restoring = try plugin.makeSession(options: [:], logger: logger)
            var report: RestorationReport?
            restore.append(clock.measure { report = engine.restore(restoring, from: archive) })
            Self.settle()
            let restored = try TmuxSnapshot.read(from: runner, version: nil).sessions.reduce(0) { $0 + $1.windows.reduce(0) { $0 + $1.panes.count } }
            guard report?.outcome == .restored, restored == expectedPanes else {
                throw BenchmarkFailure("the restore brought back \(restored) of \(expectedPanes) panes: \(report.map { "\($0.outcome) \($0.issues.prefix(3))" } ?? "")")
            }
        }
        _ = try? runner.run(["kill-server"])

        let budget = Duration.seconds(5)
        print("tmux benchmark: \(sessions) sessions x \(windows) windows x \(panes) panes (\(expectedPanes) panes), medians of \(rounds) rounds, \(Self.version(runner))")
        print("")
        print(Self.pad("", 10) + Self.pad("plugin", 12) + Self.pad("bare tmux", 12) + Self.pad("ratio", 8) + "of logind's 5 s budget")
        for (name, ours, bare) in [("save", save, bareRead), ("restore", restore, bareBuild)] {
            let (mine, theirs) = (Self.median(ours), Self.median(bare))
            print(Self.pad(name, 10) + Self.pad(Self.milliseconds(mine), 12) + Self.pad(Self.milliseconds(theirs), 12)
                + Self.pad(String(format: "%.1fx", mine / theirs), 8) + (name == "save" ? String(format: "%.3f", mine / budget) : "(at login: no budget)"))
        }
        print("")
        print("archive: \(archiveBytes) bytes")
    }

    /// The tmux calls that build the environment from nothing, one per
    /// session (one call for all would pass tmux's command size limit).
    private func buildCommands(root: String) -> [[[String]]] {
        var calls: [[[String]]] = []
        for session in 0..<sessions {
            var commands: [[String]] = []
            let name = "s\(session)"
            commands.append(["new-session", "-d", "-s", name, "-x", "200", "-y", "60", "-c", root])
            for window in 0..<windows {
                if window > 0 { commands.append(["new-window", "-d", "-t", "=\(name):\(window)", "-c", root]) }
                for _ in 1..<max(panes, 1) {
                    commands.append(["split-window", "-d", "-t", "=\(name):\(window)", "-c", root])
                    commands.append(["select-layout", "-t", "=\(name):\(window)", "tiled"])
                }
            }
            calls.append(commands)
        }
        return calls
    }

    /// Lets the panes' shells finish starting before the next measurement.
    private static func settle() {
        usleep(1_500_000)
    }

    /// Kills the server and waits until its process is gone (a server of
    /// hundreds of panes takes a while to end; a new one cannot listen before).
    private static func kill(_ runner: TmuxRunner) {
        let pid = (try? runner.run(["display-message", "-p", "#{pid}"])).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        _ = try? runner.run(["kill-server"])
        guard let pid else { return }
        let deadline = ContinuousClock.now + .seconds(30)
        // A zombie (nobody reaps a daemonized server here) counts as gone.
        func alive() -> Bool {
            ProcProcess.statFields(of: pid) != nil && !ProcAccounting.isZombie(pid)
        }
        while alive() && ContinuousClock.now < deadline { usleep(5_000) }
    }

    private static func version(_ runner: TmuxRunner) -> String {
        (try? ProgramRun.run(runner.executable.string, arguments: ["tmux", "-V"], environment: [:], timeout: .seconds(5)).outputText)?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    }

    private static func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }
    private static func milliseconds(_ duration: Duration) -> String { String(format: "%.1f ms", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000) }
    private static func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: max(width, text.count + 1), withPad: " ", startingAt: 0) }
}
