import Foundation
import RestoredDBus

/// A real KWin (Plasma 5.27, or another release's), on its virtual backend (`--virtual`, one
/// 1280x800 output), on a test's private bus, with a home and runtime
/// directory of its own under `root`; stopped by pid.
///
/// Debian's `kwin_wayland` carries a file capability this machine refuses
/// to execute; a copy without it runs, under the name `kwin_wayland` (its
/// Qt platform plugin checks the executable's name). The test reads and
/// moves windows with KWin scripts of its own, which call back the test's
/// object (`org.restored1.test.KWin` at `/test`): a KWin script serves no
/// D-Bus calls.
public final class VirtualKWin {
    /// KWin's process.
    public let process: ChildProcess
    /// Its `XDG_RUNTIME_DIR` (its Wayland display is there).
    public let runtimeDirectory: String
    /// Its Wayland display's name (`WAYLAND_DISPLAY`).
    public let waylandDisplay = "restored-test-kwin"
    private let root: String
    private let bus: PrivateBus
    private let test: DBusConnection
    private let exchange = Exchange()
    private var scripts = 0

    /// What the test's scripts and the test hand each other.
    private final class Exchange: @unchecked Sendable {
        private let lock = NSLock()
        private var reports: [String] = []
        private var moves = "[]"

        func report(_ json: String) { lock.withLock { reports.append(json) } }
        func takeReport() -> String? { lock.withLock { reports.isEmpty ? nil : reports.removeFirst() } }
        func setMoves(_ json: String) { lock.withLock { moves = json } }
        func takeMoves() -> String { lock.withLock { defer { moves = "[]" }; return moves } }
    }

    /// Starts KWin on `bus` and waits (up to 60 s) until its scripting answers.
    ///
    /// With `systemRoot` (a root of another Debian release, with `/proc`,
    /// `/dev` and this machine's `/tmp` mounted in it; as root), KWin is
    /// that root's (Plasma 6), run through `chroot` on Qt's offscreen
    /// platform; `root` and the bus must then lie in `/tmp`.
    public init(root: String, bus: PrivateBus, systemRoot: String? = nil) async throws {
        self.root = root
        self.bus = bus
        let home = root + "/kwin-home"
        runtimeDirectory = root + "/kwin-runtime"
        let binaries = root + "/kwin-bin"
        for directory in [home, runtimeDirectory, binaries] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        // A copy has no file capability.
        try FileManager.default.copyItem(atPath: (systemRoot ?? "") + "/usr/bin/kwin_wayland", toPath: binaries + "/kwin_wayland")
        var variables = ProcessInfo.processInfo.environment
        for name in ["DISPLAY", "WAYLAND_DISPLAY", "SWAYSOCK", "I3SOCK", "XDG_CONFIG_HOME", "XDG_DATA_HOME"] { variables.removeValue(forKey: name) }
        variables["HOME"] = home
        variables["XDG_RUNTIME_DIR"] = runtimeDirectory
        variables["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        variables["XDG_SESSION_TYPE"] = "wayland"
        variables["XDG_CURRENT_DESKTOP"] = "KDE"
        let arguments = ["--virtual", "--width", "1280", "--height", "800", "--socket", waylandDisplay]
        if let systemRoot {
            variables["QT_QPA_PLATFORM"] = "offscreen"
            process = try ChildProcess("/usr/sbin/chroot", [systemRoot, binaries + "/kwin_wayland"] + arguments, environment: variables, log: root + "/kwin.log")
        } else {
            process = try ChildProcess(binaries + "/kwin_wayland", arguments, environment: variables, log: root + "/kwin.log")
        }
        test = try await bus.connect()
        let exchange = exchange
        test.export(path: "/test", interfaces: [DBusInterface("org.restored1.test.KWin", methods: [
            .init("Report", inputs: [.init("windows", "s")]) { call in
                exchange.report(try call.string(at: 0))
                return []
            },
            .init("Moves", outputs: [.init("moves", "s")]) { _ in [.string(exchange.takeMoves())] },
        ])])
        try await test.requestName("org.restored1.test.KWin")
        let deadline = ContinuousClock.now + .seconds(60)
        while (try? await test.call(
            destination: "org.kde.KWin", path: "/Scripting", interface: "org.kde.kwin.Scripting", member: "isScriptLoaded", arguments: [.string("none")], timeout: .seconds(5)
        )) == nil || !FileManager.default.fileExists(atPath: runtimeDirectory + "/" + waylandDisplay) {
            guard ContinuousClock.now < deadline else {
                process.stop()
                test.close()
                throw VirtualKWinError("KWin did not come up within 60 s: \((try? String(contentsOfFile: root + "/kwin.log", encoding: .utf8)) ?? "")")
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// What a client of this KWin runs with: its runtime directory and display.
    public var clientEnvironment: [String: String] {
        ["XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": waylandDisplay, "XDG_CURRENT_DESKTOP": "KDE", "XDG_SESSION_TYPE": "wayland"]
    }

    /// A window as the test's script reads it.
    public struct Window: Equatable, Sendable, Decodable, CustomStringConvertible {
        /// Its process.
        public var pid: Int32
        /// Its desktop, from 1 (-1: on all).
        public var desktop: Int
        /// Its frame: left, top, width, height.
        public var frame: [Int]
        /// What it is, for failure messages.
        public var description: String { "pid \(pid) on desktop \(desktop) at \(frame)" }
    }

    /// Loads and runs `source` as a script of its own, then unloads it
    /// after 300 ms, unless `resident`.
    public func run(_ source: String, resident: Bool = false) async throws {
        scripts += 1
        let name = "restored-test-\(scripts)"
        let file = root + "/\(name).js"
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        let reply = try await test.call(destination: "org.kde.KWin", path: "/Scripting", interface: "org.kde.kwin.Scripting", member: "loadScript", arguments: [.string(file), .string(name)])
        let id = reply.first?.int64Value ?? -1
        // Plasma 6 puts a script's object at /Scripting/ScriptN, 5.27 at /N.
        if (try? await test.call(destination: "org.kde.KWin", path: "/Scripting/Script\(id)", interface: "org.kde.kwin.Script", member: "run")) == nil {
            _ = try await test.call(destination: "org.kde.KWin", path: "/\(id)", interface: "org.kde.kwin.Script", member: "run")
        }
        guard !resident else { return }
        try await Task.sleep(for: .milliseconds(300))
        _ = try? await test.call(destination: "org.kde.KWin", path: "/Scripting", interface: "org.kde.kwin.Scripting", member: "unloadScript", arguments: [.string(name)])
    }

    /// The normal windows now, read by a script of the test.
    public func windows() async throws -> [Window] {
        while exchange.takeReport() != nil {}
        try await run("""
            const list = workspace.clientList().filter(c => c.normalWindow).map(c => ({
                pid: c.pid, desktop: c.onAllDesktops ? -1 : c.desktop,
                frame: [c.frameGeometry.x, c.frameGeometry.y, c.frameGeometry.width, c.frameGeometry.height] }));
            callDBus('org.restored1.test.KWin', '/test', 'org.restored1.test.KWin', 'Report', JSON.stringify(list));
            """)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let json = exchange.takeReport() { return try JSONDecoder().decode([Window].self, from: Data(json.utf8)) }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw VirtualKWinError("the test's script reported no windows within 10 s")
    }

    /// Moves the windows of `pid` to desktop `desktop` (from 1) at `frame`,
    /// as a user would, through a script of the test.
    public func place(pid: Int32, desktop: Int, frame: [Int]) async throws {
        exchange.setMoves("[{\"pid\": \(pid), \"desktop\": \(desktop), \"frame\": [\(frame.map(String.init).joined(separator: ", "))]}]")
        try await run("""
            callDBus('org.restored1.test.KWin', '/test', 'org.restored1.test.KWin', 'Moves', function (reply) {
                for (const move of JSON.parse(String(reply))) {
                    if (workspace.desktops < move.desktop)
                        workspace.desktops = move.desktop;
                    for (const c of workspace.clientList().filter(c => c.pid === move.pid)) {
                        c.desktop = move.desktop;
                        c.frameGeometry = { x: move.frame[0], y: move.frame[1], width: move.frame[2], height: move.frame[3] };
                    }
                }
            });
            """)
    }

    /// Stops KWin.
    public func stop() {
        test.close()
        process.stop()
    }
}

/// Why the virtual KWin of a test could not be used.
public struct VirtualKWinError: Error, CustomStringConvertible {
    /// What happened.
    public var description: String
    init(_ description: String) { self.description = description }
}
