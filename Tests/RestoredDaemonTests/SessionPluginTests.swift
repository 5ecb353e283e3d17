import Foundation
import RestoredArchive
import RestoredDBus
import RestoredTestSupport
import SystemPackage
import Testing
import X11Client
import ProcFiles

/// The session plugin in the real daemon: real processes launched from real
/// desktop entries in the test's own `XDG_DATA_DIRS`, the user manager
/// played by python3-dbusmock.
@Suite struct SessionPluginTests {
    typealias Environment = DaemonIntegrationTests.Environment
    static let appID = "org.restored.Session"

    /// A copy of a system program under a name of this test only, so that
    /// no other process of the machine passes for one of its apps.
    static func program(_ system: String, as name: String, in directory: String) throws -> String {
        let path = directory + "/" + name
        try ExecutableFile.copy(system, to: path)
        return path
    }



    @Test("Apps come back at login as many as there were, in their directories with their files (a hostile name one argument), outside restored's sandbox; what is left out says why; a second restore starts nothing twice; a gone entry is one line")
    func saveKillRestore() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path
        let tag = String(UInt32.random(in: 1 ... UInt32.max), radix: 16)
        let bin = root + "/bin", applications = root + "/share/applications", autostart = root + "/config-system/autostart"
        for directory in [bin, applications, autostart, root + "/a", root + "/b"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let editor = try Self.program("/usr/bin/tail", as: "editor-\(tag)", in: bin)
        let sleeper = try Self.program("/bin/sleep", as: "sleeper-\(tag)", in: bin)
        let browser = try Self.program("/bin/sleep", as: "browser-\(tag)", in: bin)
        let auto = try Self.program("/bin/sleep", as: "auto-\(tag)", in: bin)
        let notes = try Self.program("/bin/sleep", as: "notes-\(tag)", in: bin)
        let secret = try Self.program("/bin/sleep", as: "secret-\(tag)", in: bin)
        let gone = try Self.program("/bin/sleep", as: "gone-\(tag)", in: bin)
        let entries = [
            ("org.example.Editor", "\(editor) -f %F"), ("org.example.Sleeper", "\(sleeper) 3000"), ("firefox", "\(browser) 3000"),
            ("org.example.Auto", "\(auto) 3000"), ("org.example.Notes", "\(notes) 3000"), ("org.example.Secret", "\(secret) 3000"),
            ("org.example.Gone", "\(gone) 3000"),
        ]
        for (id, exec) in entries {
            try "[Desktop Entry]\nType=Application\nName=\(id)\nExec=\(exec)\n".write(toFile: applications + "/\(id).desktop", atomically: false, encoding: .utf8)
        }
        try FileManager.default.copyItem(atPath: applications + "/org.example.Auto.desktop", toPath: autostart + "/org.example.Auto.desktop")
        let hostile = root + "/b/$(touch pwned); `id`.txt"
        for file in [root + "/a/one.txt", root + "/a/two.txt", hostile] { try "x\n".write(toFile: file, atomically: false, encoding: .utf8) }

        // The desktop is there (a plugin that needs one is not saved without it).
        let display = try VirtualDisplay(log: root + "/xvfb.log")
        defer { withExtendedLifetime(display) {} }
        var variables = ProcessInfo.processInfo.environment
        variables["DISPLAY"] = display.display
        variables["XDG_DATA_DIRS"] = root + "/share"
        variables["XDG_DATA_HOME"] = root + "/data-home"
        variables["HOME"] = root
        let manager = try await UserManagerMock.start(on: environment.bus)
        // The session as the user left it: two editors in two directories, a
        // sleeper, and apps the plugin leaves out.
        var apps: [ChildProcess] = []
        defer { apps.forEach { $0.stop() } }
        for (directory, command) in [
            (root + "/a", "exec '\(editor)' -f one.txt two.txt"), (root + "/b", "exec '\(editor)' -f '\(hostile)'"),
            (root, "exec '\(sleeper)' 3000"), (root, "exec '\(browser)' 3000"), (root, "exec '\(auto)' 3000"),
            (root, "exec '\(notes)' 3000"), (root, "exec '\(secret)' 3000"), (root, "exec '\(gone)' 3000"),
        ] {
            apps.append(try ChildProcess("/bin/sh", ["-c", "cd \"$0\" && \(command)", directory], environment: variables, log: root + "/app-\(apps.count).log"))
        }
        try environment.writeOptions("[org.restored.Session]\nexclude = org.example.Secret\nlaunch-interval = 50\n")
        let daemon = try environment.startDaemon(
            log: "restored.log", arguments: ["--autosave-interval", "0"], environment: variables.merging(["XDG_CONFIG_DIRS": root + "/config-system"]) { _, new in new }, sandboxed: true)
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        defer { admin.close() }
        // The apps have exec'd their programs (a hang guard, not a speed requirement).
        try await LogindInhibitorTests.eventually { apps.allSatisfy { (ProcProcess.commandLine(of: $0.pid) ?? []).first?.contains(tag) == true } }
        #expect(try await admin.call("Save", [.strings([Self.appID])]) == [.uint32(1)], "\(environment.log("restored.log"))")

        // What is left out says why, in restored-ctl show.
        var ctlEnvironment = ProcessInfo.processInfo.environment
        ctlEnvironment["DBUS_SESSION_BUS_ADDRESS"] = environment.bus.address
        ctlEnvironment["NO_COLOR"] = "1"
        let shown = try await CompletedCommand.run(BuildProducts.executable("restored-ctl"), ["show", Self.appID], environment: ctlEnvironment, in: environment.bus.directory)
        for line in [
            "firefox.desktop", "left out: restores its own windows (web browser)", "org.example.Auto.desktop", "left out: starts with the session anyway (XDG autostart)",
            "org.example.Notes.desktop", "left out: restored by its own plugin", "org.example.Secret.desktop", "left out: excluded by the user (exclude option)",
            "org.example.Editor.desktop", "org.example.Sleeper.desktop",
        ] {
            #expect(shown.output.contains(line), "\(line) in \(shown.output)")
        }

        // Logout: every app is killed; one entry is removed meanwhile.
        apps.forEach { $0.stop() }
        apps = []
        try FileManager.default.removeItem(atPath: applications + "/org.example.Gone.desktop")
        #expect(try await admin.call("Restore", [.strings([Self.appID]), .boolean(true)]) == [.uint32(1)], "\(environment.log("restored.log"))")

        let units = try await manager.transientUnits()
        #expect(units.count == 3, "\(units.map(\.name))")
        #expect(units.allSatisfy { $0.name.hasPrefix("app-restored-org.example.") && $0.name.hasSuffix(".service") })
        // Each came back as the app itself, in its directory, each file one argument, unsandboxed.
        var started: [[String]] = []
        try await LogindInhibitorTests.eventually {
            started = units.compactMap { manager.spawned[$0.name] }.map { ProcProcess.commandLine(of: $0) ?? [] }
            return started.count == 3 && started.allSatisfy { $0.first?.contains(tag) == true }
        }
        #expect(Set(started) == [[editor, "-f", root + "/a/one.txt", root + "/a/two.txt"], [editor, "-f", hostile], [sleeper, "3000"]])
        let directories = Set(units.compactMap { $0.properties["WorkingDirectory"]?.stringValue })
        #expect(directories == [root + "/a", root + "/b", root])
        #expect(units.compactMap { manager.spawned[$0.name] }.map { ProcProcess.status("Seccomp", of: $0) } == ["0", "0", "0"])
        #expect(!FileManager.default.fileExists(atPath: root + "/b/pwned"))
        #expect(environment.log("restored.log").contains("org.example.Gone.desktop: its desktop entry is gone; it is not reopened"))
        // The list of what was left out comes back as a list: no object of it is "not restored", and nothing of it reopens.
        #expect(!environment.log("restored.log").contains("not restored: left-out"), "\(environment.log("restored.log"))")

        // A second restore finds them running: nothing starts twice.
        #expect(try await admin.call("Restore", [.strings([Self.appID]), .boolean(true)]) == [.uint32(1)])
        #expect(try await manager.transientUnits().count == 3)
        manager.stop()
        #expect(await daemon.terminated() == 0)
    }

    @Test("No desktop, no save of the apps that need one: without a display the session plugin is not walked (a save says kept, and why; no archive is written or discarded), and once the desktop's display comes it is (its restore at the desktop's start finds nothing saved yet)")
    func noSaveWithoutDesktop() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path
        var variables = ProcessInfo.processInfo.environment
        variables.removeValue(forKey: "DISPLAY")
        variables.removeValue(forKey: "WAYLAND_DISPLAY")
        variables["XDG_DATA_DIRS"] = root + "/share"
        variables["XDG_DATA_HOME"] = root + "/data-home"
        // restored's DISPLAY names a display whose server has not started yet.
        var number = Int.random(in: 200 ... 900)
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") { number += 1 }
        variables["DISPLAY"] = ":\(number)"
        let manager = try await UserManagerMock.start(on: environment.bus)
        defer { manager.stop() }
        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0"], environment: variables)
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        defer { admin.close() }
        #expect(environment.wholeLog("restored.log").contains("\(Self.appID) waits for the desktop"), "\(environment.wholeLog("restored.log"))")
        _ = try await admin.call("Save", [.strings([Self.appID])])
        let kept = try #require(try await admin.apps()[Self.appID])
        #expect(kept["LastOutcome"] == .string("kept"), "\(kept)")
        #expect(kept["LastDetail"]?.stringValue?.contains("waits for the desktop") == true, "\(kept)")
        #expect(kept["HasArchive"] == .boolean(false))

        // The desktop's display comes: the app is walked again.
        let display = try VirtualDisplay(log: root + "/xvfb.log", number: number)
        defer { withExtendedLifetime(display) {} }
        try await LogindInhibitorTests.eventually { environment.log("restored.log").contains("the desktop is there: \(display.display)") }
        try await LogindInhibitorTests.eventually { environment.log("restored.log").contains("\(Self.appID): restore at login: no-archive") }
        // Walked now: no app of it runs, so it declines, with no archive to discard.
        _ = try await admin.call("Save", [.strings([Self.appID])])
        let saved = try #require(try await admin.apps()[Self.appID])
        #expect(saved["LastOutcome"] == .string("declined"), "\(saved)")
        #expect(!environment.log("restored.log").contains("previous archive is discarded"))
        daemon.stop()
    }

    @Test("R6: in a live session a save keeps what runs; at the end of the session (logind closing when restored is stopped) a save that finds the apps gone answers \"keep what you have\" and the last archive stays")
    func goingAway() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path
        let tag = String(UInt32.random(in: 1 ... UInt32.max), radix: 16)
        for directory in [root + "/bin", root + "/share/applications"] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let first = try Self.program("/bin/sleep", as: "first-\(tag)", in: root + "/bin")
        let second = try Self.program("/bin/sleep", as: "second-\(tag)", in: root + "/bin")
        for (id, program) in [("org.example.First", first), ("org.example.Second", second)] {
            try "[Desktop Entry]\nType=Application\nName=\(id)\nExec=\(program) 3000\n".write(toFile: root + "/share/applications/\(id).desktop", atomically: false, encoding: .utf8)
        }
        // The desktop is there (a plugin that needs one is not saved without it).
        let display = try VirtualDisplay(log: root + "/xvfb.log")
        defer { withExtendedLifetime(display) {} }
        var variables = ProcessInfo.processInfo.environment
        variables["DISPLAY"] = display.display
        variables["XDG_DATA_DIRS"] = root + "/share"
        variables["XDG_DATA_HOME"] = root + "/data-home"
        let one = try ChildProcess(first, ["3000"], environment: variables, log: root + "/one.log")
        defer { one.stop() }
        let two = try ChildProcess(second, ["3000"], environment: variables, log: root + "/two.log")
        defer { two.stop() }
        let (daemon, admin, generation) = try await environment.startAndSave(Self.appID, environment: variables)
        defer { admin.close() }

        // In a live session the user closed one: the save keeps what runs.
        try await environment.logind.setUser(getuid(), state: "active")
        two.stop()
        #expect(try await admin.call("Save", [.strings([Self.appID])]) == [.uint32(1)])
        #expect(try await admin.apps()[Self.appID]?["Generation"]?.uint64Value == generation + 1)

        // Logout: logind says closing, the other app is gone already, and
        // restored is stopped: its save is the session end's.
        try await environment.logind.setUser(getuid(), state: "closing")
        one.stop()
        #expect(await daemon.terminated() == 0)
        let store = ArchiveStore(directory: FilePath(environment.state))
        #expect(try store.read(try AppID(Self.appID)).archive.generation == generation + 1)
        let log = environment.wholeLog("restored.log")
        #expect(log.contains("the session ends (logind says the user's session is closing)"), "\(log)")
        #expect(log.contains("org.example.First.desktop closed while the session ends: keeping the last archive"), "\(log)")
        #expect(log.contains("1 kept its last archive"), "\(log)")
    }

    @Test("R7: an app that exits within its first seconds after the login restore reopened it is a failed launch, said so, and stays in the archive through the saves that follow, until the user runs it again")
    func earlyExitIsAFailedLaunch() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path
        let tag = String(UInt32.random(in: 1 ... UInt32.max), radix: 16)
        for directory in [root + "/bin", root + "/share/applications"] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let program = try Self.program("/bin/sleep", as: "fragile-\(tag)", in: root + "/bin")
        try "[Desktop Entry]\nType=Application\nName=Fragile\nExec=\(program) 3000\n".write(toFile: root + "/share/applications/org.example.Fragile.desktop", atomically: false, encoding: .utf8)
        // The desktop is there: the session's apps are restored at once.
        let display = try VirtualDisplay(log: root + "/xvfb.log")
        var variables = ProcessInfo.processInfo.environment
        variables["DISPLAY"] = display.display
        variables["XDG_DATA_DIRS"] = root + "/share"
        variables["XDG_DATA_HOME"] = root + "/data-home"
        let app = try ChildProcess(program, ["3000"], environment: variables, log: root + "/app.log")
        defer { app.stop() }
        let (daemon, admin, generation) = try await environment.startAndSave(Self.appID, environment: variables)
        #expect(await daemon.terminated() == 0)
        admin.close()
        app.stop()

        // Next login: the program now dies at start.
        try FileManager.default.removeItem(atPath: program)
        try FileManager.default.copyItem(atPath: "/bin/false", toPath: program)
        let again = try environment.startDaemon(log: "restored-2.log", arguments: ["--autosave-interval", "0"], environment: variables)
        _ = try await environment.waitForNotify("READY=1")
        let second = try await environment.admin()
        defer { second.close() }
        let log = environment.wholeLog("restored-2.log")
        #expect(log.contains("org.example.Fragile.desktop: exited within 3.0 seconds of its launch"), "\(log)")
        #expect(log.contains("reopened 0 app instance(s), 1 failed"), "\(log)")
        // The save that follows, in the live session, keeps it for the next try.
        #expect(try await second.call("Save", [.strings([Self.appID])]) == [.uint32(1)])
        let store = ArchiveStore(directory: FilePath(environment.state))
        let archive = try store.read(try AppID(Self.appID)).archive
        #expect(archive.generation > generation)
        #expect(archive.objects.contains { $0.path.description == "org.example.Fragile.desktop/0" }, "\(archive.objects.map(\.path.description))")
        #expect(try await second.call("Save", [.strings([Self.appID])]) == [.uint32(1)])
        #expect(try store.read(try AppID(Self.appID)).archive.objects.contains { $0.path.description == "org.example.Fragile.desktop/0" })

        // The user runs it by hand, then closes it: from then on the saves
        // go by what runs, and with nothing running the archive goes (R6).
        try FileManager.default.removeItem(atPath: program)
        try FileManager.default.copyItem(atPath: "/bin/sleep", toPath: program)
        let byHand = try ChildProcess(program, ["3000"], environment: variables, log: root + "/app-2.log")
        defer { byHand.stop() }
        #expect(try await second.call("Save", [.strings([Self.appID])]) == [.uint32(1)])
        byHand.stop()
        #expect(try await second.call("Save", [.strings([Self.appID])]) == [.uint32(0)])
        #expect(try await second.apps()[Self.appID]?["LastOutcome"] == .string("declined"))
        #expect(await again.terminated() == 0)
    }

    @Test("A terminal comes back in the directory of the shell it showed, not its own, on its workspace at its place (xterm under Xvfb and openbox)")
    func terminal() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path
        let shellDirectory = root + "/project dir"
        for directory in [root + "/share/applications", shellDirectory] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        try "[Desktop Entry]\nType=Application\nName=XTerm\nExec=xterm\n".write(toFile: root + "/share/applications/xterm.desktop", atomically: false, encoding: .utf8)
        // Another test's xterm would be a running xterm for this restore.
        let xtermLock = try await SharedTestLock.acquire("xterm")
        defer { xtermLock.release() }
        let display = try VirtualDisplay(log: root + "/xvfb.log", windowManager: true)
        var variables = ProcessInfo.processInfo.environment
        variables["XDG_DATA_DIRS"] = root + "/share"
        variables["XDG_DATA_HOME"] = root + "/data-home"
        variables["DISPLAY"] = display.display
        variables["SHELL"] = "/bin/sh"
        variables["HOME"] = root
        let manager = try await UserManagerMock.start(on: environment.bus, environment: ["DISPLAY": display.display, "SHELL": "/bin/sh", "HOME": root])
        defer { manager.stop() }
        // The terminal runs in the test's directory; its shell went elsewhere.
        var terminal: ChildProcess? = try ChildProcess("/usr/bin/xterm", ["-e", "/bin/sh", "-c", "cd \"$0\" && exec /bin/sh", shellDirectory], environment: variables, log: root + "/xterm.log")
        defer { terminal?.stop() }
        let terminalPID = try #require(terminal?.pid)
        try await LogindInhibitorTests.eventually {
            ProcProcess.children(of: terminalPID).contains { ProcProcess.directory(of: $0) == shellDirectory }
        }
        // The user put its window on the second workspace, somewhere.
        let x11 = try X11Connection(display: try #require(X11Display(display.display)), authorityFile: nil)
        var window: ManagedWindow?
        try await LogindInhibitorTests.eventually {
            window = try? x11.managedWindows().first { $0.pid == terminalPID }
            return window != nil
        }
        let saved = WindowPlacement(desktop: 1, x: 333, y: 222, width: try #require(window).placement.width, height: try #require(window).placement.height)
        try x11.place(try #require(window).id, at: saved)
        try await LogindInhibitorTests.eventually { (try? x11.managedWindows().first { $0.pid == terminalPID }?.placement) == saved }
        let (daemon, admin, _) = try await environment.startAndSave(Self.appID, environment: variables)
        defer { admin.close() }
        terminal?.stop()
        terminal = nil
        #expect(try await admin.call("Restore", [.strings([Self.appID]), .boolean(true)]) == [.uint32(1)], "\(environment.log("restored.log"))")
        let unit = try #require(try await manager.transientUnits().first, "\(environment.wholeLog("restored.log"))")
        #expect(unit.properties["WorkingDirectory"]?.stringValue == shellDirectory)
        #expect(unit.command.last == "xterm")
        // The new xterm's shell starts there.
        let pid = try #require(manager.spawned[unit.name])
        try await LogindInhibitorTests.eventually {
            ProcProcess.children(of: pid).contains { ProcProcess.directory(of: $0) == shellDirectory }
        }
        // Its window is where it was.
        try await LogindInhibitorTests.eventually { (try? x11.managedWindows().first { $0.pid == pid }?.placement) == saved }
        #expect(try x11.managedWindows().first { $0.pid == pid }?.placement == saved)
        #expect(await daemon.terminated() == 0)
    }
}
