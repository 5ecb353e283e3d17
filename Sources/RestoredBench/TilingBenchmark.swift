import ArgumentParser
import Foundation
import Glibc
import Logging
import ProcessSpawning
import RestoredArchive
import RestoredEngine
import Synchronization
import SystemPackage
import WindowManagerIPC

/// `restored-bench tiling`: a restore of terminal windows on a real
/// headless sway, from its start to the last window on its workspace,
/// against the bare launch of the same windows.
struct TilingBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiling",
        abstract: "Time restoring terminal windows onto their sway workspaces against their bare launch.",
        discussion: """
            Starts a headless sway as the user nobody (setpriv: needs root) and --windows foot windows \
            spread over --workspaces workspaces. Bare: the same foot command lines started at once, until \
            every window has mapped. Restore: the session plugin (loaded with dlopen) saves them, they are \
            killed, and its restoration walk reopens them (started detached: no user manager here, \
            launch-interval 0), timed from the walk's start until every window is on its workspace. \
            Medians of --rounds rounds. With --system-root, sway is that root's (another release's), run \
            through chroot; the rest is this machine's.
            """
    )

    @Option(help: "Terminal windows.")
    var windows = 20
    @Option(help: "Workspaces they are spread over.")
    var workspaces = 4
    @OptionGroup var options: CompositorBenchmarkOptions

    func run() throws {
        guard getuid() == 0 else { throw BenchmarkFailure("sway runs as the user nobody here: that needs root") }
        let logger = InProcessWalks.logger()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("restored-bench-tiling-\(getpid())").path
        let runtime = root + "/runtime", home = root + "/home"
        for directory in [runtime, home] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            chown(directory, 65534, 65534)
        }
        chmod(root, 0o755)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "\n".write(toFile: home + "/config", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: root + "/share/applications", withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=Foot\nExec=foot\n".write(toFile: root + "/share/applications/foot.desktop", atomically: true, encoding: .utf8)
        // sway as nobody; with --system-root, the root's sway (and setpriv) through chroot.
        let asNobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/sway", "-c", home + "/config"]
        let (program, arguments) = options.systemRoot.map { ("/usr/sbin/chroot", ["chroot", $0, "/usr/bin/setpriv"] + asNobody.dropFirst()) } ?? ("/usr/bin/setpriv", asNobody)
        let sway = try ChildProcess.spawn(FilePath(program), arguments: arguments, environment: [
            "PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": runtime, "HOME": home, "WLR_BACKENDS": "headless", "WLR_RENDERER": "pixman", "WLR_LIBINPUT_NO_DEVICES": "1",
        ], options: SpawnOptions(input: .null, output: .null, errors: .null))
        defer { sway.reap(within: .zero) }
        var socket: String?
        let started = ContinuousClock.now
        while socket == nil || !FileManager.default.fileExists(atPath: runtime + "/wayland-1") {
            guard ContinuousClock.now - started < .seconds(30) else { throw BenchmarkFailure("sway did not come up within 30 s") }
            usleep(50_000)
            socket = ((try? FileManager.default.contentsOfDirectory(atPath: runtime)) ?? []).first { $0.hasPrefix("sway-ipc.") }.map { runtime + "/" + $0 }
        }
        let ipc = try WindowManagerConnection(socket: FilePath(socket!), timeout: .seconds(5))
        // The plugin reads its environment when it is created: this sway, no session bus.
        for (name, value) in ["XDG_RUNTIME_DIR": runtime, "WAYLAND_DISPLAY": "wayland-1", "SWAYSOCK": socket!, "XDG_DATA_DIRS": root + "/share",
                              "XDG_DATA_HOME": root + "/data-home", "SHELL": "/bin/sh", "HOME": root] {
            setenv(name, value, 1)
        }
        for name in ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "I3SOCK"] { unsetenv(name) }
        let environment = ProcessInfo.processInfo.environment
        let directories = (0 ..< windows).map { root + "/w\($0)" }
        for directory in directories { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let plugin = try BuiltPlugin.load("SessionPlugin", directory: options.pluginDirectory, logger: logger)
        let engine = InProcessWalks.engine(logger: logger)

        func tree() -> [WindowTree.Window] { (try? ipc.tree().windows) ?? [] }
        func closeAll() throws {
            for window in tree() { if let pid = window.pid { Glibc.kill(pid, SIGKILL) } }
            let deadline = ContinuousClock.now + .seconds(30)
            while !tree().isEmpty {
                guard ContinuousClock.now < deadline else { throw BenchmarkFailure("the windows did not close within 30 s") }
                usleep(20_000)
            }
        }
        func launchAll() throws {
            for directory in directories {
                _ = try DetachedProcess.start("/usr/bin/foot", arguments: ["foot", "--working-directory=\(directory)"], environment: environment, directory: FilePath(directory))
            }
        }
        func waitUntil(_ condition: ([WindowTree.Window]) -> Bool) throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while !condition(tree()) {
                guard ContinuousClock.now < deadline else { throw BenchmarkFailure("the windows did not come within 60 s: \(tree().count) of \(windows)") }
                usleep(5_000)
            }
        }
        let spread = { (windows: [WindowTree.Window]) -> [String: Int] in Dictionary(grouping: windows, by: \.workspace).mapValues(\.count) }
        var bare: [Duration] = []
        var restore: [Duration] = []
        let clock = ContinuousClock()
        for _ in 0 ..< options.rounds {
            try closeAll()
            bare.append(try clock.measure {
                try launchAll()
                try waitUntil { $0.count == windows }
            })
            // The user's session: the windows spread over the workspaces.
            for (index, window) in tree().enumerated() {
                try ipc.run("[con_id=\(window.id)] move container to workspace \(index % workspaces + 1)")
            }
            let expected = spread(tree())
            let saving = try plugin.makeSession(options: ["launch-interval": "0"], logger: logger)
            guard let archive = engine.makeArchive(of: saving).archive else { throw BenchmarkFailure("the save kept nothing") }
            try closeAll()
            let restoring = try plugin.makeSession(options: ["launch-interval": "0"], logger: logger)
            // Watched from a thread of its own, on a connection of its own:
            // the walk ends only after its early-exit check.
            let placedAt = Mutex<ContinuousClock.Instant?>(nil)
            let start = clock.now
            let path = socket!, count = windows
            let watcher = Thread {
                guard let watching = try? WindowManagerConnection(socket: FilePath(path), timeout: .seconds(5)) else { return }
                let deadline = ContinuousClock.now + .seconds(60)
                while ContinuousClock.now < deadline {
                    let now = (try? watching.tree().windows) ?? []
                    if now.count == count, Dictionary(grouping: now, by: \.workspace).mapValues(\.count) == expected {
                        placedAt.withLock { $0 = .now }
                        return
                    }
                    usleep(5_000)
                }
            }
            watcher.start()
            _ = engine.restore(restoring, from: archive)
            while !watcher.isFinished { usleep(20_000) }
            guard let placed = placedAt.withLock({ $0 }) else { throw BenchmarkFailure("the restore did not place every window within 60 s: \(spread(tree()))") }
            restore.append(placed - start)
        }
        try closeAll()
        let (ours, theirs) = (bare.sorted()[bare.count / 2], restore.sorted()[restore.count / 2])
        print("tiling benchmark: \(windows) foot windows over \(workspaces) workspaces on a headless sway, medians of \(options.rounds) rounds")
        print("bare launch until mapped:              \(ours)")
        print("restore until every window is placed:  \(theirs)")
        print(String(format: "ratio (restore / bare): %.2f", theirs / ours))
    }
}
