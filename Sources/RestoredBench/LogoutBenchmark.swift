import ArgumentParser
import Foundation
import Glibc
import RestoredDBus
import RestoredTestSupport

/// `restored-bench logout`: the time from each logout signal to the save
/// being done, next to the protocol's limit, with the save before suspend
/// of the same daemon as the baseline.
struct LogoutBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Time the save at each logout signal against the protocol's limit.",
        discussion: """
            The real restored on a private bus with N copies of the synthetic plugin (--objects each), \
            python3-dbusmock's logind and gnome-session (legacy client), the real xdg-desktop-portal \
            frontend with an Inhibit backend of the benchmark's own, a real i3 on Xvfb. Each signal's \
            time runs from just before the signal is sent until every app's AppSaved signal (trigger \
            logout) arrived; for SIGTERM, until restored exited. The baseline is the save before \
            suspend (PrepareForSleep until LockHeld is false) of the same daemon. Between rounds the \
            logout is cancelled (the portal's RUNNING, gnome-session's CancelEndSession). Medians.
            """
    )

    @Option(help: "Apps (copies of the synthetic plugin).")
    var apps = 10
    @Option(help: "Objects per app.")
    var objects = 1000
    @Option(help: "Rounds of the suspend baseline, the portal and the session manager.")
    var rounds = 5

    func run() async throws {
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let logind = try await LogindMock.start(on: bus)
        defer { logind.stop() }
        let root = bus.directory.path
        let display = try VirtualDisplay(log: root + "/xvfb.log")

        // gnome-session's legacy client API.
        let gnome = try await DBusMock.gnomeSessionManager(on: bus)
        let client = DBusMock.gnomeSessionClient
        // The portal: the real frontend, a backend of our own.
        let portal = try await DesktopPortal.start(on: bus)
        // i3 on the display.
        let socket = root + "/i3.sock"
        try "ipc-socket \(socket)\n".write(toFile: root + "/i3.config", atomically: true, encoding: .utf8)
        var displayEnvironment = ProcessInfo.processInfo.environment
        displayEnvironment["DISPLAY"] = display.display
        let i3 = try ChildProcess("/usr/bin/i3", ["-c", root + "/i3.config"], environment: displayEnvironment, log: root + "/i3.log")
        defer { i3.stop() }
        try await SuspendBenchmark.waitUntil("i3's socket", within: .seconds(30)) { FileManager.default.fileExists(atPath: socket) }

        let plugins = root + "/plugins", state = root + "/state"
        for directory in [plugins, state] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        var options: [String] = []
        for index in 0..<apps {
            try FileManager.default.copyItem(atPath: BuildProducts.plugin("SyntheticPlugin"), toPath: plugins + "/libSyntheticPlugin-\(index).so")
            options += ["--option", "org.restored.bench.Synthetic\(index):objects=\(objects)"]
        }
        let notify = try NotifyListener(path: root + "/notify")
        defer { notify.close() }
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display.display
        for name in ["I3SOCK", "SWAYSOCK", "SESSION_MANAGER"] { environment.removeValue(forKey: name) }
        let launcher = SuspendBenchmark.Launcher(
            bus: bus, notify: notify, arguments: ["--plugin-dir", plugins, "--log-level", "info", "--autosave-interval", "0"] + options, environment: environment
        )
        let (daemon, _) = try await launcher.start(state: state, log: "restored.log")
        defer { daemon.stop() }
        let log = { (try? String(contentsOfFile: root + "/restored.log", encoding: .utf8)) ?? "" }
        do {
            try await SuspendBenchmark.waitUntil { log().contains("following the window manager's IPC") }
        } catch {
            throw BenchmarkFailure("restored follows neither the portal nor i3: \(log().suffix(2000))")
        }
        let session = try await portal.monitorSession()

        let watcher = try await bus.connect()
        defer { watcher.close() }
        let restoredSignals = try await watcher.signals(matching: DBusMatchRule(sender: "org.restored1", path: "/org/restored1"))
        var signals = restoredSignals.makeAsyncIterator()
        /// Waits for `apps` AppSaved signals of `trigger`, or LockHeld false for suspend.
        func waitForSaves(_ trigger: String) async throws {
            var saved = 0
            while saved < apps, let signal = await signals.next() {
                if signal.member == "AppSaved", (try? signal.arguments())?.dropFirst(2).first?.stringValue == trigger { saved += 1 }
                if trigger == "sleep", signal.member == "PropertiesChanged",
                   (try? signal.arguments())?.dropFirst().first?.stringKeyedValue?["LockHeld"]?.boolValue == false { return }
            }
        }

        var suspend: [Duration] = [], queryEnd: [Duration] = [], endSession: [Duration] = []
        for _ in 0..<rounds {
            try await SuspendBenchmark.waitUntil("the delay lock") { try await logind.inhibitors().count == 1 }
            let start = ContinuousClock.now
            try await logind.emit("PrepareForSleep", signature: "b", [.boolean(true)])
            try await waitForSaves("sleep")
            suspend.append(ContinuousClock.now - start)
            try await logind.emit("PrepareForSleep", signature: "b", [.boolean(false)])
        }
        for round in 0..<rounds {
            let start = ContinuousClock.now
            try await portal.setState(2, of: session)
            try await waitForSaves("logout")
            queryEnd.append(ContinuousClock.now - start)
            try await SuspendBenchmark.waitUntil("QueryEndResponse") { try await portal.queryEndResponses() == round + 1 }
            try await portal.setState(1, of: session)
            try await SuspendBenchmark.waitUntil("the cancelled logout") { log().components(separatedBy: "the logout was cancelled").count == round + 2 }
        }
        for round in 0..<rounds {
            let start = ContinuousClock.now
            try await gnome.emit(path: client, interface: "org.gnome.SessionManager.ClientPrivate", member: "EndSession", signature: "u", [.uint32(0)])
            try await waitForSaves("logout")
            endSession.append(ContinuousClock.now - start)
            try await SuspendBenchmark.waitUntil("EndSessionResponse") { try await gnome.calls(path: client, method: "EndSessionResponse").count == round + 1 }
            try await gnome.emit(path: client, interface: "org.gnome.SessionManager.ClientPrivate", member: "CancelEndSession", signature: "", [])
            try await Task.sleep(for: .milliseconds(200))
        }
        // The last two end things: i3, then restored itself.
        let i3Start = ContinuousClock.now
        _ = try await CompletedCommand.run("/usr/bin/i3-msg", ["-s", socket, "exit"], environment: displayEnvironment, in: URL(fileURLWithPath: root))
        try await waitForSaves("logout")
        let i3Exit = ContinuousClock.now - i3Start
        // Wait out the minute in which a stop trusts the logout's saves.
        try await Task.sleep(for: .seconds(61))
        let stopStart = ContinuousClock.now
        guard await daemon.terminated(timeout: .seconds(30)) == 0 else { throw BenchmarkFailure("restored did not stop cleanly; see \(root)") }
        let stop = ContinuousClock.now - stopStart

        let baseline = SuspendBenchmark.median(suspend)
        print("logout benchmark: \(apps) apps of \(objects) objects; medians of \(rounds) rounds (i3 and SIGTERM: one each)")
        print("signal                                   save done   vs suspend save   limit    share of the limit")
        let rows: [(String, Duration, Duration?)] = [
            ("suspend (logind PrepareForSleep)", baseline, .seconds(5)),
            ("portal QUERY_END", SuspendBenchmark.median(queryEnd), .seconds(1)),
            ("gnome-session EndSession", SuspendBenchmark.median(endSession), .seconds(10)),
            ("i3 IPC shutdown (i3-msg exit)", i3Exit, nil),
            ("SIGTERM (unit stop), until exit", stop, .seconds(20)),
        ]
        for (name, time, limit) in rows {
            let ratio = String(format: "%.2fx", time / baseline)
            let limitText = limit.map { "\($0.components.seconds) s" } ?? "none"
            let share = limit.map { String(format: "%.3f", time / $0) } ?? "-"
            print("\(name.padding(39))  \(SuspendBenchmark.Result.ms(time).padding(10))  \(ratio.padding(16))  \(limitText.padding(7))  \(share)")
        }
    }
}
