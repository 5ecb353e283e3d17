import AppDiscovery
import ArgumentParser
import DesktopEntries
import Foundation
import ProcFiles
import Glibc

/// `restored-bench scan`: the session plugin's reading of `/proc` at a save
/// (before suspend, at logout), with many processes of other users on the
/// machine, against the same scan without them.
struct ScanBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Time the running-app scan of a save with other users' processes against it without them.",
        discussion: """
            Scans this user's running apps (RunningAppScanner over the machine's desktop entries) --rounds \
            times; then starts --others processes (sleep) as the user nobody (setpriv: needs root) and scans \
            again. Other users' processes are none of the save's business: the second median over the first \
            says what they cost it. Every process started is killed by pid at the end.
            """
    )

    @Option(help: "Processes of another user to start.")
    var others = 300
    @Option(help: "Rounds; the median is reported.")
    var rounds = 30

    func run() throws {
        guard getuid() == 0 else { throw BenchmarkFailure("starting processes of another user needs root") }
        let entries = DesktopEntryIndex(environment: ProcessInfo.processInfo.environment)
        let scanner = RunningAppScanner()
        let clock = ContinuousClock()
        func median() -> Duration {
            var times: [Duration] = []
            for _ in 0..<rounds { times.append(clock.measure { _ = scanner.scan(entries) }) }
            return times.sorted()[times.count / 2]
        }
        let alone = median()
        var started: [Process] = []
        defer {
            for process in started where process.isRunning { kill(process.processIdentifier, SIGKILL) }
            for process in started { process.waitUntilExit() }
        }
        for _ in 0..<others {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid", "65534", "--regid", "65534", "--clear-groups", "/bin/sleep", "600"]
            try process.run()
            started.append(process)
        }
        // Each has become sleep, as nobody.
        let deadline = ContinuousClock.now + .seconds(60)
        while started.contains(where: { ProcFile.text(atPath: "/proc/\($0.processIdentifier)/comm") != "sleep\n" }) {
            guard ContinuousClock.now < deadline else { throw BenchmarkFailure("the processes of nobody did not start within 60 s") }
            usleep(10_000)
        }
        let crowded = median()
        print("scan alone:                      \(alone)")
        print("scan with \(others) processes of nobody: \(crowded)")
        print(String(format: "ratio: %.2f", crowded / alone))
    }
}
