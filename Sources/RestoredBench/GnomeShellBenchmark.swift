import ArgumentParser
import Foundation
import Glibc
import Logging
import ProcessSpawning
import RestoredArchive
import RestoredEngine
import RestoredTestSupport
import Synchronization
import SystemPackage

/// `restored-bench gnome-shell`: a restore of terminal windows on a real
/// headless GNOME Shell with restored's extension, from its start to the
/// last window at its place, against the bare launch of the same windows.
struct GnomeShellBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gnome-shell",
        abstract: "Time restoring terminal windows to their GNOME Shell workspaces and frames against their bare launch.",
        discussion: """
            Starts a headless GNOME Shell (a private bus, python3-dbusmock playing logind) with restored's \
            extension installed from this checkout (scripts/install-window-places: run it from the checkout) \
            and --windows foot windows. Bare: the same foot command lines started at once, until every window \
            has mapped. Restore: the windows are spread over --workspaces workspaces, each at a frame of its \
            own; the session plugin (loaded with dlopen; this program owns org.restored1, as restored does) \
            saves them, they are killed, and its restoration walk reopens them (started detached: no user \
            manager here, launch-interval 0), timed from the walk's start until every window is on its \
            workspace at its frame. Medians of --rounds rounds. With --system-root, the GNOME Shell is that \
            root's (another release's), run through chroot; the rest is this machine's.
            """
    )

    @Option(help: "Terminal windows.")
    var windows = 20
    @Option(help: "Workspaces they are spread over.")
    var workspaces = 2
    @OptionGroup var options: CompositorBenchmarkOptions

    func run() async throws {
        let logger = InProcessWalks.logger()
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let logind = try await LogindMock.start(on: bus)
        defer { logind.stop() }
        let root = bus.directory.path
        try await WindowRestoreTiming.installWindowPlaces(under: root + "/installed-share")
        // The extension's form is chosen by the shell's version: both are installed.
        let shell = try await HeadlessGnomeShell(
            root: root, bus: bus, dataDirectories: [root + "/installed-share"], extensions: ["window-places@restored", "window-places-legacy@restored"],
            systemRoot: options.systemRoot
        )
        defer { shell.stop() }
        let major = shell.majorVersion
        // This program plays restored: the extension answers the owner of
        // org.restored1 and its own processes (the plugin's connection is this process's).
        let restored = try await bus.connect()
        defer { restored.close() }
        try await restored.requestName("org.restored1")

        try FileManager.default.createDirectory(atPath: root + "/share/applications", withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=Foot\nExec=foot\n".write(toFile: root + "/share/applications/foot.desktop", atomically: true, encoding: .utf8)
        // The plugin reads its environment when it is created: this shell, no user manager.
        let pluginEnvironment = shell.clientEnvironment.merging([
            "XDG_DATA_DIRS": root + "/share", "XDG_DATA_HOME": root + "/data-home", "SHELL": "/bin/sh", "HOME": root,
            "DBUS_SESSION_BUS_ADDRESS": bus.address, "DBUS_SYSTEM_BUS_ADDRESS": bus.address,
        ]) { _, new in new }
        for (name, value) in pluginEnvironment { setenv(name, value, 1) }
        for name in ["DISPLAY", "SWAYSOCK", "I3SOCK"] { unsetenv(name) }
        let environment = ProcessInfo.processInfo.environment
        let directories = (0 ..< windows).map { root + "/w\($0)" }
        for directory in directories { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let plugin = try BuiltPlugin.load("SessionPlugin", directory: options.pluginDirectory, logger: logger)
        let engine = InProcessWalks.engine(logger: logger)

        func closeAll() async throws {
            for window in try await shell.windows(on: bus) { kill(window.pid, SIGKILL) }
            let deadline = ContinuousClock.now + .seconds(30)
            while try await !shell.windows(on: bus).isEmpty {
                guard ContinuousClock.now < deadline else { throw BenchmarkFailure("the windows did not close within 30 s") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        func waitUntil(_ condition: ([HeadlessGnomeShell.Window]) -> Bool) async throws -> [HeadlessGnomeShell.Window] {
            let deadline = ContinuousClock.now + .seconds(120)
            while true {
                let now = try await shell.windows(on: bus)
                if condition(now) { return now }
                guard ContinuousClock.now < deadline else {
                    throw BenchmarkFailure("the windows did not come as expected within 120 s: \(now.count) of \(windows): \(now.map(\.description).joined(separator: "; "))")
                }
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        let places = (0 ..< windows).map { index -> (workspace: Int32, frame: [Int32]) in
            (Int32(index % workspaces), WindowRestoreTiming.frame(ofWindow: index).map { Int32($0) })
        }
        let key = { (windows: [HeadlessGnomeShell.Window]) in windows.map { "\($0.workspace) \($0.frame)" }.sorted() }
        let expected = places.map { "\($0.workspace) \($0.frame)" }.sorted()
        var mapped: [HeadlessGnomeShell.Window] = []
        let (bare, restore) = try await WindowRestoreTiming.measure(
            rounds: options.rounds, plugin: plugin, engine: engine, logger: logger, closeAll: closeAll,
            launch: {
                try WindowRestoreTiming.launch("/usr/bin/foot", in: directories, environment: environment) { ["foot", "--working-directory=\($0)"] }
                mapped = try await waitUntil { $0.count == windows }
                return .now
            },
            arrange: {
                // The user's session: each window on its workspace at its frame,
                // placed again until they all hold for a second (a foot slow to
                // start may commit the size it first chose after a move).
                let placeOf = Dictionary(uniqueKeysWithValues: zip(mapped.map(\.pid), places).map { ($0, $1) })
                var held = 0
                let placing = ContinuousClock.now + .seconds(120)
                while held < 5 {
                    guard ContinuousClock.now < placing else { throw BenchmarkFailure("the windows did not hold their places within 120 s") }
                    let now = try await shell.windows(on: bus)
                    held = key(now) == expected ? held + 1 : 0
                    for window in now {
                        guard let place = placeOf[window.pid], window.workspace != place.workspace || window.frame != place.frame else { continue }
                        try await shell.place(pid: window.pid, workspace: place.workspace, frame: place.frame, on: bus)
                    }
                    try await Task.sleep(for: .milliseconds(200))
                }
                return expected
            },
            placed: { expected in
                _ = try await waitUntil { key($0) == expected }
                return .now
            }
        )
        WindowRestoreTiming.printFigures(
            "gnome-shell benchmark: \(windows) foot windows over \(workspaces) workspaces on a headless GNOME Shell \(major), medians of \(options.rounds) rounds",
            bare: bare, restore: restore
        )
    }
}
