import AppDiscovery
import AppLaunching
import DesktopEntries
import Foundation
import RestoredDBus
import UnitLaunching
import RestoredTestSupport
import Testing
import ProcFiles

/// Starting apps from desktop entries: by the user manager (played by
/// python3-dbusmock), detached without one, and by D-Bus activation of a
/// small real service on the test's private bus.
@Suite(.serialized) struct DesktopAppLauncherTests {
    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("launch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/share/applications", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/work", withIntermediateDirectories: true)
    }

    func entry(_ id: String, _ body: String) throws -> DesktopEntry {
        let path = root + "/share/applications/\(id)"
        try "[Desktop Entry]\nType=Application\nName=\(id)\n\(body)\n".write(toFile: path, atomically: false, encoding: .utf8)
        return try #require(DesktopEntryIndex(directories: [root + "/share/applications"])[id])
    }



    @Test("An Exec entry becomes a user-manager unit named for the next save, in its directory, each file one argument, with GIO's variables on the app itself")
    func unit() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let hostile = root + "/work/$(touch pwned); `id` \"q\".log"
        try "x\n".write(toFile: hostile, atomically: false, encoding: .utf8)
        let follow = try entry("org.example.Follow.desktop", "Exec=tail -f %F")
        let bus = try await PrivateBus.start()
        let manager = try await UserManagerMock.start(on: bus)
        defer { manager.stop() }
        let connection = try await bus.connect()
        defer { connection.close() }
        let result = try await DesktopAppLauncher(connection: connection, environment: ProcessInfo.processInfo.environment)
            .launch(DesktopLaunch(entry: follow, directory: root + "/work", items: [hostile]))
        guard case .unit(let name) = result else { Issue.record("not started as a unit: \(result)"); return }
        #expect(name.hasPrefix("app-restored-org.example.Follow@") && name.hasSuffix(".service"))
        let unit = try #require(try await manager.transientUnits().first)
        #expect(unit.name == name)
        #expect(unit.properties["WorkingDirectory"]?.stringValue == root + "/work")
        #expect(unit.environment["GIO_LAUNCHED_DESKTOP_FILE"] == follow.path)
        let pid = try #require(manager.spawned[name])
        // The app itself, once sh has exec'd it: its pid is GIO's _PID, its file one argument.
        var arguments: [String] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while arguments.first != "tail", ContinuousClock.now < deadline {
            arguments = (ProcProcess.commandLine(of: pid) ?? [])
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(arguments == ["tail", "-f", hostile])
        #expect(ProcProcess.environment(of: pid)["GIO_LAUNCHED_DESKTOP_FILE_PID"] == String(pid))
        #expect(!FileManager.default.fileExists(atPath: root + "/work/pwned"))
        // The next save finds it again.
        let found = RunningAppScanner().scan(DesktopEntryIndex(directories: [root + "/share/applications"])).filter { $0.pid == pid }
        #expect(found.map(\.desktopID) == ["org.example.Follow.desktop"])
        #expect(found.first?.openedItems == [hostile])
    }

    @Test("Without a user manager the app starts detached, the documented fallback; a missing program or TryExec is an error for that app")
    func detachedAndMissing() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let sleeper = try entry("org.example.Sleeper.desktop", "Exec=sleep 3000")
        let result = try await DesktopAppLauncher(connection: nil, environment: ProcessInfo.processInfo.environment)
            .launch(DesktopLaunch(entry: sleeper, directory: root + "/work", items: []))
        guard case .detached(let pid) = result else { Issue.record("not detached: \(result)"); return }
        defer { kill(pid, SIGKILL) }
        var arguments: [String] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while arguments.first != "sleep", ContinuousClock.now < deadline {
            arguments = (ProcProcess.commandLine(of: pid) ?? [])
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(arguments == ["sleep", "3000"])
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")) == root + "/work")
        #expect(ProcProcess.environment(of: pid)["GIO_LAUNCHED_DESKTOP_FILE_PID"] == String(pid))

        let missing = try entry("org.example.Gone.desktop", "Exec=no-such-program-restored %f")
        await #expect {
            _ = try await DesktopAppLauncher(connection: nil, environment: ProcessInfo.processInfo.environment).launch(DesktopLaunch(entry: missing, directory: nil, items: []))
        } throws: { error in
            guard case .entry("org.example.Gone.desktop", .notInstalled(program: "no-such-program-restored", _))? = error as? LaunchError else { return false }
            return true
        }
        let tryExec = try entry("org.example.TryExec.desktop", "Exec=sleep 1\nTryExec=no-such-program-restored")
        await #expect(throws: LaunchError.tryExecMissing(entry: "org.example.TryExec.desktop", program: "no-such-program-restored")) {
            _ = try await DesktopAppLauncher(connection: nil, environment: ProcessInfo.processInfo.environment).launch(DesktopLaunch(entry: tryExec, directory: nil, items: []))
        }
    }

    @Test("A D-Bus activatable entry is activated on the session bus: Activate with no file, Open with its files as file:// URIs")
    func activation() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let bus = try await PrivateBus.start()
        let log = root + "/calls.log"
        let script = root + "/service.py"
        try Self.serviceScript.write(toFile: script, atomically: false, encoding: .utf8)
        try """
        [D-BUS Service]
        Name=org.example.Activatable
        Exec=/usr/bin/python3 \(script) org.example.Activatable /org/example/Activatable \(log)
        """.write(to: bus.servicesDirectory.appendingPathComponent("org.example.Activatable.service"), atomically: false, encoding: .utf8)
        let activatable = try entry("org.example.Activatable.desktop", "DBusActivatable=true\nExec=false")
        let connection = try await bus.connect()
        defer { connection.close() }
        defer {
            // The service, by the pid it wrote.
            if let text = try? String(contentsOfFile: log + ".pid", encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) { kill(pid, SIGKILL) }
        }
        let launcher = DesktopAppLauncher(connection: connection, environment: ProcessInfo.processInfo.environment)
        #expect(try await launcher.launch(DesktopLaunch(entry: activatable, directory: nil, items: [])) == .activated(busName: "org.example.Activatable"))
        let file = root + "/work/a b.txt"
        _ = try await launcher.launch(DesktopLaunch(entry: activatable, directory: nil, items: [file, "https://example.org/x"]))
        let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(calls == ["Activate", "Open file://\(root)/work/a%20b.txt https://example.org/x"])
    }

    /// A small org.freedesktop.Application service (dbus-python, Debian's
    /// python3), started by the bus: it logs each call.
    static let serviceScript = """
    import os, sys
    import dbus, dbus.service, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    name, path, log = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(log + '.pid', 'w') as f:
        f.write(str(os.getpid()))
    bus = dbus.bus.BusConnection(os.environ['DBUS_STARTER_ADDRESS'])
    def record(line):
        with open(log, 'a') as f:
            f.write(line + '\\n')
    class Application(dbus.service.Object):
        @dbus.service.method('org.freedesktop.Application', in_signature='a{sv}')
        def Activate(self, platform_data):
            record('Activate')
        @dbus.service.method('org.freedesktop.Application', in_signature='asa{sv}')
        def Open(self, uris, platform_data):
            record('Open ' + ' '.join(str(u) for u in uris))
        @dbus.service.method('org.freedesktop.Application', in_signature='sava{sv}')
        def ActivateAction(self, action, parameter, platform_data):
            record('ActivateAction ' + action)
    application = Application(bus, path)
    bus_name = dbus.service.BusName(name, bus)
    bus.call_on_disconnection(lambda connection: loop.quit())
    loop = GLib.MainLoop()
    loop.run()
    """
}
