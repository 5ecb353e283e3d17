import ArgumentParser
import Foundation
import Glibc
import ProcessSpawning
import RestoredArchive
import RestoredDBus
import RestoredEngine
import RestoredTestSupport
import Synchronization
import SystemPackage

/// `restored-bench kwin`: a restore of terminal windows on a real KWin
/// (its virtual backend) with restored's KWin script, from its start to the
/// last window on its desktop at its frame, against the bare launch of the
/// same windows.
struct KWinBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kwin",
        abstract: "Time restoring terminal windows to their KWin desktops and frames against their bare launch.",
        discussion: """
            Starts KWin on its virtual backend (a private bus; a copy of kwin_wayland without its file \
            capability) with restored's KWin script installed from this checkout (scripts/install-window-places: \
            run it from the checkout) and --windows kitty windows (this machine's foot, 1.13, dies on KWin's virtual \
            output). A resident script of the benchmark reports \
            every window's desktop and frame as they change. Bare: the same kitty command lines started at once, \
            until every window has mapped. Restore: the windows are spread over --desktops desktops, each at a \
            frame of its own; the session plugin (loaded with dlopen) saves them, they are killed, and its \
            restoration walk reopens them (started detached: no user manager here, launch-interval 0), timed \
            from the walk's start until every window is on its desktop at its frame. Medians of --rounds rounds. \
            With --system-root, KWin is that root's (another release's), run through chroot; the rest is this \
            machine's.
            """
    )

    @Option(help: "Terminal windows.")
    var windows = 10
    @Option(help: "Desktops they are spread over.")
    var desktops = 2
    @OptionGroup var options: CompositorBenchmarkOptions

    /// A window as the benchmark's script reports it.
    struct Window: Decodable, Hashable {
        var pid: Int32
        /// From 0; -1 on all desktops.
        var desktop: Int
        var frame: [Int]
    }

    /// A report of the benchmark's script: its number (reports may be
    /// handled out of order) and the windows.
    struct Report: Decodable {
        var sequence: Int
        var windows: [Window]
    }

    /// The windows the benchmark's script last reported, and when.
    final class Reports: Sendable {
        private let last = Mutex<(sequence: Int, windows: [Window], at: ContinuousClock.Instant)>((-1, [], .now))
        func record(_ json: String) {
            guard let report = try? JSONDecoder().decode(Report.self, from: Data(json.utf8)) else {
                FileHandle.standardError.write("kwin benchmark: a report that does not read: \(json)\n".data(using: .utf8)!)
                return
            }
            let now = ContinuousClock.now
            last.withLock { if report.sequence > $0.sequence { $0 = (report.sequence, report.windows, now) } }
        }
        var windows: [Window] { last.withLock { $0.windows } }
        var latest: (windows: [Window], at: ContinuousClock.Instant) { last.withLock { ($0.windows, $0.at) } }
    }

    /// Reports every normal window's process, desktop and frame whenever a
    /// window appears, goes, or changes its frame or desktops (Plasma 6 and 5.27).
    static let watcher = """
        const plasma6 = typeof workspace.windowList === 'function';
        const all = () => (plasma6 ? workspace.windowList() : workspace.clientList()).filter(w => w.normalWindow);
        const desktopOf = w => plasma6 ? (w.onAllDesktops || w.desktops.length === 0 ? -1 : workspace.desktops.indexOf(w.desktops[0]))
            : (w.onAllDesktops ? -1 : w.desktop - 1);
        let sequence = 0;
        function report(gone) {
            const list = all().filter(w => w !== gone).map(w => ({ pid: w.pid, desktop: desktopOf(w),
                frame: [Math.round(w.frameGeometry.x), Math.round(w.frameGeometry.y), Math.round(w.frameGeometry.width), Math.round(w.frameGeometry.height)] }));
            sequence += 1;
            callDBus('org.restored1.bench.KWin', '/bench', 'org.restored1.bench.KWin', 'Report', JSON.stringify({ sequence, windows: list }));
        }
        function watch(w) {
            if (!w.normalWindow)
                return;
            w.frameGeometryChanged.connect(() => report(null));
            (plasma6 ? w.desktopsChanged : w.desktopChanged).connect(() => report(null));
            report(null);
        }
        all().forEach(watch);
        (plasma6 ? workspace.windowAdded : workspace.clientAdded).connect(watch);
        (plasma6 ? workspace.windowRemoved : workspace.clientRemoved).connect(w => report(w));
        report(null);
        """

    /// A script that puts each window of a process at a place, as a user
    /// would: `frames` (pid to frame) where it is shown, or `desktops`
    /// (pid to desktop from 0) alone.
    static func placing(frames: [Int32: [Int]] = [:], desktops: [Int32: Int] = [:]) -> String {
        let frameList = frames.map { "[\($0.key), [\($0.value.map(String.init).joined(separator: ", "))]]" }.joined(separator: ", ")
        let desktopList = desktops.map { "[\($0.key), \($0.value)]" }.joined(separator: ", ")
        return """
            const plasma6 = typeof workspace.windowList === 'function';
            const all = () => (plasma6 ? workspace.windowList() : workspace.clientList()).filter(w => w.normalWindow);
            for (const [pid, f] of [\(frameList)])
                for (const w of all().filter(w => w.pid === pid))
                    w.frameGeometry = { x: f[0], y: f[1], width: f[2], height: f[3] };
            for (const [pid, d] of [\(desktopList)]) {
                if (plasma6) {
                    while (workspace.desktops.length <= d)
                        workspace.createDesktop(workspace.desktops.length, '');
                } else if (workspace.desktops <= d) {
                    workspace.desktops = d + 1;
                }
                for (const w of all().filter(w => w.pid === pid)) {
                    if (plasma6)
                        w.desktops = [workspace.desktops[d]];
                    else
                        w.desktop = d + 1;
                }
            }
            """
    }

    /// The live processes whose parent is one of `parents`.
    static func children(of parents: Set<Int32>) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry -> Int32? in
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, fields[0] != "Z", let parent = Int32(fields[1]) else { return nil }
            return parents.contains(parent) ? pid : nil
        }
    }

    func run() async throws {
        let logger = InProcessWalks.logger()
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let root = bus.directory.path
        try await WindowRestoreTiming.installWindowPlaces(under: root + "/installed-share")
        let kwin = try await VirtualKWin(root: root, bus: bus, systemRoot: options.systemRoot)
        defer { kwin.stop() }
        let reports = Reports()
        let bench = try await bus.connect()
        defer { bench.close() }
        bench.export(path: "/bench", interfaces: [DBusInterface("org.restored1.bench.KWin", methods: [
            .init("Report", inputs: [.init("windows", "s")]) { call in
                reports.record(try call.string(at: 0))
                return []
            },
        ])])
        try await bench.requestName("org.restored1.bench.KWin")
        try await kwin.run(Self.watcher, resident: true)

        try FileManager.default.createDirectory(atPath: root + "/share/applications", withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=kitty\nExec=kitty\nTerminal=false\n".write(toFile: root + "/share/applications/kitty.desktop", atomically: true, encoding: .utf8)
        // The plugin reads its environment when it is created: this KWin, no user manager.
        let pluginEnvironment = kwin.clientEnvironment.merging([
            "XDG_DATA_DIRS": root + "/share:" + root + "/installed-share", "XDG_DATA_HOME": root + "/data-home", "SHELL": "/bin/sh", "HOME": root,
            "DBUS_SESSION_BUS_ADDRESS": bus.address,
        ]) { _, new in new }
        for (name, value) in pluginEnvironment { setenv(name, value, 1) }
        for name in ["DISPLAY", "SWAYSOCK", "I3SOCK", "DBUS_SYSTEM_BUS_ADDRESS"] { unsetenv(name) }
        let environment = ProcessInfo.processInfo.environment
        let directories = (0 ..< windows).map { root + "/w\($0)" }
        for directory in directories { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let plugin = try BuiltPlugin.load("SessionPlugin", directory: options.pluginDirectory, logger: logger)
        let engine = InProcessWalks.engine(logger: logger)

        func waitUntil(_ what: String, _ condition: ([Window]) -> Bool) async throws -> ContinuousClock.Instant {
            let deadline = ContinuousClock.now + .seconds(120)
            while true {
                let (now, at) = reports.latest
                if condition(now) { return at }
                guard ContinuousClock.now < deadline else {
                    throw BenchmarkFailure("\(what) did not happen within 120 s: \(now.count) window(s): \(now)")
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        /// Ends every window's process and its children (kitty starts
        /// each window's shell from a child of its own, a session leader
        /// that a restore would count as a kitty still running).
        func closeAll() async throws {
            let pids = Set(reports.windows.map(\.pid))
            for child in Self.children(of: pids) { kill(child, SIGKILL) }
            for pid in pids { kill(pid, SIGKILL) }
            _ = try await waitUntil("closing every window") { $0.isEmpty }
            let deadline = ContinuousClock.now + .seconds(30)
            while !Self.children(of: pids).isEmpty {
                guard ContinuousClock.now < deadline else { throw BenchmarkFailure("the windows' processes did not end within 30 s") }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        /// Places the windows with scripts until `held` holds for a second.
        func hold(_ script: @escaping ([Window]) -> String, until held: @escaping ([Window]) -> Bool) async throws {
            var steady = 0
            let deadline = ContinuousClock.now + .seconds(120)
            while steady < 5 {
                guard ContinuousClock.now < deadline else { throw BenchmarkFailure("the windows did not hold their places within 120 s: \(reports.windows)") }
                let now = reports.windows
                steady = held(now) ? steady + 1 : 0
                if steady == 0 { try await kwin.run(script(now)) }
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        let frames = (0 ..< windows).map(WindowRestoreTiming.frame(ofWindow:))
        let key = { (windows: [Window]) in windows.map { "\($0.desktop) \($0.frame)" }.sorted() }
        let (bare, restore) = try await WindowRestoreTiming.measure(
            rounds: options.rounds, plugin: plugin, engine: engine, logger: logger, closeAll: closeAll,
            launch: {
                try WindowRestoreTiming.launch("/usr/bin/kitty", in: directories, environment: environment) { ["kitty", "--directory", $0, "/bin/sh"] }
                return try await waitUntil("every bare window's mapping") { $0.count == windows }
            },
            arrange: {
                // The user's session: each window at a frame of its own where it
                // is shown (a Wayland window takes a frame when it draws, and
                // one on a desktop not shown draws nothing), then spread over
                // the desktops as it is.
                let pids = reports.windows.map(\.pid).sorted()
                let frameOf = Dictionary(uniqueKeysWithValues: zip(pids, frames))
                let desktopOf = Dictionary(uniqueKeysWithValues: pids.enumerated().map { ($1, $0 % desktops) })
                try await hold({ _ in Self.placing(frames: frameOf) }, until: { now in now.count == windows && now.allSatisfy { $0.frame == frameOf[$0.pid] } })
                try await hold({ _ in Self.placing(desktops: desktopOf) }, until: { now in now.count == windows && now.allSatisfy { $0.desktop == desktopOf[$0.pid] } })
                return key(reports.windows)
            },
            placed: { expected in try await waitUntil("every restored window's place (saved: \(expected))") { key($0) == expected } }
        )
        WindowRestoreTiming.printFigures(
            "kwin benchmark: \(windows) kitty windows over \(desktops) desktops on KWin's virtual backend, medians of \(options.rounds) rounds",
            bare: bare, restore: restore
        )
    }
}
