import Foundation
import RestoredTestSupport
import Testing

/// The session plugin on a real KWin (Plasma 5.27) on its virtual backend,
/// with restored's KWin script installed as `scripts/install` installs it,
/// and real kitty terminals (foot 1.13 dies on KWin's virtual output): each
/// window back on its desktop at its frame, through the daemon and a user
/// manager played by python3-dbusmock.
@Suite struct KWinSessionTests {
    typealias Environment = DaemonIntegrationTests.Environment
    static let appID = "org.restored.Session"

    @Test("KWin and kitty: two windows (one on desktop 2 at its frame, one on desktop 1 at another) are saved through the daemon and restored's KWin script, killed, and come back each on its desktop at its frame")
    func kwinWindows() async throws {
        // Another test's foot or kitty would be a running app of this test's
        // session (the foot lock first, as no test takes them the other way).
        let footLock = try await SharedTestLock.acquire("foot")
        defer { footLock.release() }
        let kittyLock = try await SharedTestLock.acquire("kitty")
        defer { kittyLock.release() }
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path
        // The script where the daemon's XDG_DATA_DIRS finds it, beside the desktop entries.
        try await GnomeShellSessionTests.installWindowPlaces(under: root + "/share")
        let kwin = try await VirtualKWin(root: root, bus: environment.bus)
        defer { kwin.stop() }
        let (variables, manager) = try await TilingSessionTests.footSession(
            root: root, desktop: kwin.clientEnvironment, environment: environment, entries: ["kitty.desktop": "Name=kitty\nExec=kitty\nTerminal=false"]
        )
        defer { manager.stop() }

        let places: [(name: String, desktop: Int, frame: [Int])] = [
            ("second", 2, [100, 80, 600, 400]),
            ("first", 1, [500, 300, 640, 360]),
        ]
        var terminals: [String: ChildProcess] = [:]
        defer { for terminal in terminals.values { terminal.stop() } }
        for place in places {
            let directory = root + "/\(place.name) dir"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            terminals[place.name] = try ChildProcess("/usr/bin/kitty", ["--directory", directory, "/bin/sh"], environment: variables, log: root + "/kitty-\(place.name).log")
        }
        // Placed again until each place has held on ten looks.
        var before: [String: VirtualKWin.Window] = [:]
        var held = 0
        try await LogindInhibitorTests.eventually(within: .seconds(90)) {
            let windows = try await kwin.windows()
            var all = true
            for place in places {
                let pid = terminals[place.name]!.pid
                let window = windows.first { $0.pid == pid }
                before[place.name] = window
                if window?.desktop != place.desktop || window?.frame != place.frame {
                    all = false
                    if window != nil { try await kwin.place(pid: pid, desktop: place.desktop, frame: place.frame) }
                }
            }
            held = all ? held + 1 : 0
            return held >= 10
        }

        let (daemon, admin, _) = try await environment.startAndSave(Self.appID, environment: variables)
        admin.close()
        #expect(await daemon.terminated() == 0)
        for terminal in terminals.values { terminal.stop() }
        terminals = [:]
        try await LogindInhibitorTests.eventually { try await kwin.windows().isEmpty }

        let (again, units, restored) = try await TilingSessionTests.nextLogin(
            restoring: Self.appID, count: 2, environment: environment, variables: variables, manager: manager
        )
        defer { for unit in units { if let pid = manager.spawned[unit.name] { kill(pid, SIGKILL) } } }
        var after: [VirtualKWin.Window] = []
        try await LogindInhibitorTests.eventually {
            after = try await kwin.windows()
            return places.allSatisfy { place in
                let window = after.first { $0.pid == restored[root + "/\(place.name) dir"] }
                return window?.desktop == place.desktop && window?.frame == place.frame
            }
        }
        for place in places {
            let window = after.first { $0.pid == restored[root + "/\(place.name) dir"] }
            #expect(window?.desktop == place.desktop && window?.frame == place.frame,
                    "\(place.name): saved \(String(describing: before[place.name])), now \(String(describing: window)); \(environment.wholeLog("restored-2.log"))")
        }
        #expect(environment.wholeLog("restored-2.log").contains("placed 2 window(s) where they were"), "\(environment.log("restored-2.log"))")
        #expect(await again.terminated() == 0)

        // restored-ctl doctor says where the script is, or that it is missing.
        var doctorVariables = variables
        doctorVariables["DBUS_SESSION_BUS_ADDRESS"] = environment.bus.address
        doctorVariables["DBUS_SYSTEM_BUS_ADDRESS"] = environment.bus.address
        let doctor = { (variables: [String: String]) in
            try await CompletedCommand.run(BuildProducts.executable("restored-ctl"), ["doctor", "--plugin-dir", root + "/no-plugins"], environment: variables, in: URL(fileURLWithPath: root))
        }
        let found = try await doctor(doctorVariables)
        #expect(found.output.contains("KWin script: \(root)/share/restored/kwin/places.js: the session plugin loads it"), "\(found.output)\(found.error)")
        doctorVariables["XDG_DATA_DIRS"] = root + "/elsewhere"
        let missing = try await doctor(doctorVariables)
        #expect(missing.output.contains("KWin script: KWin runs, but restored's KWin script (restored/kwin/places.js) is in no data directory"), "\(missing.output)\(missing.error)")
    }
}
