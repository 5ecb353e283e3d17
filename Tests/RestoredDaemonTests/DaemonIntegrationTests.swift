import Foundation
import Glibc
import RestoredArchive
import RestoredDBus
import RestoredTestSupport
import SystemPackage
import Testing
import ProcFiles

/// The `restored` executable on private buses, with logind's mock and the
/// notes example plugin: suspend, resume, logout (SIGTERM) and the next login.
@Suite struct DaemonIntegrationTests {
    /// Everything a daemon run needs, removed with the bus's directory.
    struct Environment {
        let bus: PrivateBus
        let logind: LogindMock
        let notify: NotifyListener
        let plugins: String
        let state: String
        let notes: String

        static func make() async throws -> Environment {
            let bus = try await PrivateBus.start()
            let logind = try await LogindMock.start(on: bus)
            let root = bus.directory.path
            let plugins = root + "/plugins", state = root + "/state", notes = root + "/notes"
            for directory in [plugins, state, notes + "/notes"] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            try FileManager.default.createSymbolicLink(atPath: plugins + "/libExampleNotesPlugin.so", withDestinationPath: BuildProducts.plugin("ExampleNotesPlugin"))
            try "a\nb\nc".write(toFile: notes + "/notes/order", atomically: true, encoding: .utf8)
            try #"{"editorText":"before the reboot","selectedIndices":[2],"editorNoteID":"c"}"#.write(toFile: notes + "/ui.json", atomically: true, encoding: .utf8)
            let notify = try NotifyListener(path: root + "/notify")
            return Environment(bus: bus, logind: logind, notify: notify, plugins: plugins, state: state, notes: notes)
        }

        /// Starts `restored` with these buses, plugins and state.
        /// With `sandboxed`, restored runs under a seccomp filter, as its
        /// unit runs it (`restored-test-seccomp`).
        func startDaemon(log: String, arguments extra: [String] = [], environment overrides: [String: String] = [:], sandboxed: Bool = false) throws -> ChildProcess {
            var environment = ProcessInfo.processInfo.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
            environment["NOTIFY_SOCKET"] = notify.address
            // Pings every 30 s: the test reads its socket only now and then, and
            // a datagram socket queues few messages.
            environment["WATCHDOG_USEC"] = "60000000"
            environment.removeValue(forKey: "JOURNAL_STREAM")
            // The test's own configuration directories, never the user's.
            environment["XDG_CONFIG_HOME"] = configuration
            environment["XDG_CONFIG_DIRS"] = bus.directory.path + "/config-system"
            environment.merge(overrides) { _, new in new }
            let arguments = ["--plugin-dir", plugins, "--state-dir", state, "--option", "org.example.Notes:live-dir=\(notes)", "--log-level", "debug"] + extra
            let restored = BuildProducts.executable("restored")
            return try ChildProcess(
                sandboxed ? BuildProducts.executable("restored-test-seccomp") : restored,
                sandboxed ? [restored] + arguments : arguments,
                environment: environment, log: bus.directory.appendingPathComponent(log).path
            )
        }

        /// Waits for a notify message with `field`, collecting the others.
        func waitForNotify(_ field: String) async throws -> [String] {
            var seen: [String] = []
            while let message = try await notify.receiveOffPool(timeout: 20_000) {
                seen.append(message)
                if message.split(separator: "\n").contains(where: { $0 == field }) { return seen }
            }
            Issue.record("no \(field) from restored; got \(seen); see \(bus.directory.path)")
            return seen
        }

        var archive: String { state + "/org.example.Notes/archive" }

        /// `XDG_CONFIG_HOME` of the daemons started here.
        var configuration: String { bus.directory.path + "/config" }

        /// Writes `text` as the plugins' options file in `XDG_CONFIG_HOME`.
        func writeOptions(_ text: String) throws {
            try FileManager.default.createDirectory(atPath: configuration + "/restored", withIntermediateDirectories: true)
            try text.write(toFile: configuration + "/restored/restored.conf", atomically: true, encoding: .utf8)
        }

        /// Puts the built plugin `product` in the plugin directory.
        func addPlugin(_ product: String) throws {
            try FileManager.default.createSymbolicLink(atPath: plugins + "/lib\(product).so", withDestinationPath: BuildProducts.plugin(product))
        }

        /// Starts restored (log `restored.log`, no autosave, then `extra`),
        /// waits until it is ready, and saves `appID` once: the daemon, a
        /// client of its admin API, and the generation of the archive written.
        func startAndSave(
            _ appID: String, arguments extra: [String] = [], environment variables: [String: String]
        ) async throws -> (daemon: ChildProcess, admin: AdminClient, generation: UInt64) {
            let daemon = try startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0"] + extra, environment: variables)
            _ = try await waitForNotify("READY=1")
            let admin = try await admin()
            #expect(try await admin.call("Save", [.strings([appID])]) == [.uint32(1)], "\(log("restored.log"))")
            let generation = try #require(try await admin.apps()[appID]?["Generation"]?.uint64Value)
            return (daemon, admin, generation)
        }

        /// Rewrites `appID`'s current archive with `change` applied, encoded
        /// again with a valid checksum: an archive as a test wants it.
        func editArchive(of appID: String, _ change: (inout Archive) throws -> Void) throws {
            let file = URL(fileURLWithPath: state + "/\(appID)/archive")
            var archive = try ArchiveCodec.decode(Array(try Data(contentsOf: file)))
            try change(&archive)
            try Data(ArchiveCodec.encode(archive)).write(to: file)
        }

        /// A client of the admin API on the session bus.
        func admin() async throws -> AdminClient {
            AdminClient(connection: try await bus.connect())
        }

        /// The end of a daemon's log, for failure messages.
        func log(_ name: String) -> String {
            String(wholeLog(name).suffix(3000))
        }

        /// A daemon's whole log.
        func wholeLog(_ name: String) -> String {
            (try? String(contentsOfFile: bus.directory.appendingPathComponent(name).path, encoding: .utf8)) ?? "(no log)"
        }
    }

    @Test("R6, R7, R15: suspend saves and releases the lock, resume retakes it, SIGTERM saves and exits 0, the next login restores")
    func wholeCycle() async throws {
        let environment = try await Environment.make()
        let daemon = try environment.startDaemon(log: "restored-1.log")
        let ready = try await environment.waitForNotify("READY=1")
        #expect(ready.last?.contains("STATUS=Watching 1 app") == true)
        try await LogindInhibitorTests.eventually { try await environment.logind.inhibitors() == [LogindInhibitorTests.lock] }

        // The admin API answers on the session bus.
        let client = try await environment.bus.connect()
        defer { client.close() }
        let apps = try await client.call(
            destination: "org.restored1", path: "/org/restored1", interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string("org.restored1.Manager"), .string("Apps")]
        )
        #expect(apps.first?.unwrapped == .strings(["org.example.Notes"]))

        // Suspend: the archive is written, then the lock goes.
        try await environment.logind.emit("PrepareForSleep", signature: "b", [.boolean(true)])
        try await LogindInhibitorTests.eventually { try await environment.logind.inhibitors().isEmpty }
        #expect(FileManager.default.fileExists(atPath: environment.archive))
        // Resume: the lock is back.
        try await environment.logind.emit("PrepareForSleep", signature: "b", [.boolean(false)])
        try await LogindInhibitorTests.eventually { try await environment.logind.inhibitors().count == 1 }

        // Logout: SIGTERM saves, says STOPPING=1, exits 0.
        try #"{"editorText":"typed after resume","selectedIndices":[0],"editorNoteID":"a"}"#
            .write(toFile: environment.notes + "/ui.json", atomically: true, encoding: .utf8)
        #expect(await daemon.terminated() == 0, "\(environment.log("restored-1.log"))")
        _ = try await environment.waitForNotify("STOPPING=1")

        // Next login: the app comes back as it was at logout.
        try FileManager.default.removeItem(atPath: environment.notes + "/ui.json")
        let again = try environment.startDaemon(log: "restored-2.log")
        _ = try await environment.waitForNotify("READY=1")
        let restored = try String(contentsOfFile: environment.notes + "/ui.json", encoding: .utf8)
        #expect(restored.contains("typed after resume"))
        #expect(await again.terminated() == 0)
    }

    @Test("R7: restored started again in the same session (its mark in XDG_RUNTIME_DIR) is a recovery: the live app gets no restore, its archive stays; a new session (a fresh runtime directory) restores")
    func recoveryRestoresNothingLive() async throws {
        let environment = try await Environment.make()
        let runtime = environment.bus.directory.path + "/runtime"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let daemon = try environment.startDaemon(log: "restored-1.log", environment: ["XDG_RUNTIME_DIR": runtime])
        _ = try await environment.waitForNotify("READY=1")
        #expect(await daemon.terminated() == 0)
        let archive = try Data(contentsOf: URL(fileURLWithPath: environment.archive))

        // The app moved on while restored was down; a restore would undo it.
        let live = #"{"editorText":"typed while restored was down","selectedIndices":[1],"editorNoteID":"b"}"#
        try live.write(toFile: environment.notes + "/ui.json", atomically: true, encoding: .utf8)
        let again = try environment.startDaemon(log: "restored-2.log", arguments: ["--autosave-interval", "0"], environment: ["XDG_RUNTIME_DIR": runtime])
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        defer { admin.close() }
        let app = try #require(try await admin.apps()["org.example.Notes"])
        #expect(app["LastOutcome"] == .string("live"), "\(app)")
        #expect(app["LastTrigger"] == .string("recovery"), "\(app)")
        #expect(try String(contentsOfFile: environment.notes + "/ui.json", encoding: .utf8) == live)
        #expect(try Data(contentsOf: URL(fileURLWithPath: environment.archive)) == archive)
        #expect(environment.wholeLog("restored-2.log").contains("restored started again during the login"))
        #expect(await again.terminated() == 0)

        // A new session: a fresh runtime directory, so a login that restores.
        try FileManager.default.removeItem(atPath: runtime)
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        try FileManager.default.removeItem(atPath: environment.notes + "/ui.json")
        let third = try environment.startDaemon(log: "restored-3.log", environment: ["XDG_RUNTIME_DIR": runtime])
        _ = try await environment.waitForNotify("READY=1")
        #expect(try String(contentsOfFile: environment.notes + "/ui.json", encoding: .utf8).contains("typed while restored was down"))
        #expect(await third.terminated() == 0)
    }

    @Test("Logout on i3: its IPC shutdown event (i3-msg exit) saves every app while they still run, found through the socket i3 names on the root window; a restart in place saves nothing and is followed; the stop that follows trusts that save")
    func i3ExitSaves() async throws {
        let environment = try await Environment.make()
        let root = environment.bus.directory.path
        let display = try VirtualDisplay(log: root + "/xvfb.log")
        let socket = root + "/i3.sock"
        try "ipc-socket \(socket)\n".write(toFile: root + "/i3.config", atomically: true, encoding: .utf8)
        var variables = ProcessInfo.processInfo.environment
        variables["DISPLAY"] = display.display
        variables.removeValue(forKey: "I3SOCK")
        let i3 = try ChildProcess("/usr/bin/i3", ["-c", root + "/i3.config"], environment: variables, log: root + "/i3.log")
        defer { i3.stop() }
        try await LogindInhibitorTests.eventually { FileManager.default.fileExists(atPath: socket) }

        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0"], environment: ["DISPLAY": display.display])
        _ = try await environment.waitForNotify("READY=1")
        try await LogindInhibitorTests.eventually { environment.wholeLog("restored.log").contains("following the window manager's IPC at \(socket)") }
        let admin = try await environment.admin()
        defer { admin.close() }
        try #"{"editorText":"typed before logout","selectedIndices":[0],"editorNoteID":"a"}"#
            .write(toFile: environment.notes + "/ui.json", atomically: true, encoding: .utf8)

        // A restart in place keeps the session: nothing is saved, and the
        // watch follows the restarted i3.
        _ = try await CompletedCommand.run("/usr/bin/i3-msg", ["-s", socket, "restart"], environment: variables, in: URL(fileURLWithPath: root))
        try await Task.sleep(for: .seconds(2))
        #expect(try await admin.apps()["org.example.Notes"]?["LastTrigger"] != .string("logout"))
        #expect(!environment.wholeLog("restored.log").contains("the session ends"))

        let exit = try await CompletedCommand.run("/usr/bin/i3-msg", ["-s", socket, "exit"], environment: variables, in: URL(fileURLWithPath: root))
        #expect(exit.status == 0 || exit.status == 1, "\(exit.output)\(exit.error)")
        try await LogindInhibitorTests.eventually(within: .seconds(20)) {
            try await admin.apps()["org.example.Notes"]?["LastTrigger"] == .string("logout")
        }
        #expect(try await admin.apps()["org.example.Notes"]?["LastOutcome"] == .string("saved"))
        #expect(environment.wholeLog("restored.log").contains("the session ends (the window manager is exiting (the window manager's IPC shutdown event))"))
        #expect(await i3.exited(timeout: .seconds(10)) != nil)

        #expect(await daemon.terminated() == 0)
        #expect(environment.wholeLog("restored.log").contains("not saving org.example.Notes again: saved at logout moments ago"))
        let store = ArchiveStore(directory: FilePath(environment.state))
        let archive = try store.read(try AppID("org.example.Notes")).archive
        #expect(String(decoding: archive.appState, as: UTF8.self).contains("typed before logout") || archive.objects.contains { String(decoding: $0.state, as: UTF8.self).contains("typed before logout") })
    }

    @Test("Logout on sway (headless, as an unprivileged user, as sway refuses root): the Wayland display in the runtime directory is the desktop, and swaymsg exit, which closes the IPC socket of SWAYSOCK without the shutdown event, saves every app")
    func swayExitSaves() async throws {
        let environment = try await Environment.make()
        let root = environment.bus.directory.path
        let sway = try await HeadlessSway(root: root)
        defer { sway.stop() }
        let socket = sway.socket
        let daemon = try environment.startDaemon(
            log: "restored.log", arguments: ["--autosave-interval", "0"],
            environment: sway.clientEnvironment
        )
        _ = try await environment.waitForNotify("READY=1")
        try await LogindInhibitorTests.eventually { environment.wholeLog("restored.log").contains("following the window manager's IPC at \(socket)") }
        let admin = try await environment.admin()
        defer { admin.close() }
        try #"{"editorText":"typed before leaving sway","selectedIndices":[0],"editorNoteID":"a"}"#
            .write(toFile: environment.notes + "/ui.json", atomically: true, encoding: .utf8)

        // sway may exit before it answers: swaymsg then fails, and that is no failure.
        _ = try? await sway.message(["exit"])
        try await LogindInhibitorTests.eventually(within: .seconds(20)) {
            try await admin.apps()["org.example.Notes"]?["LastTrigger"] == .string("logout")
        }
        #expect(try await admin.apps()["org.example.Notes"]?["LastOutcome"] == .string("saved"), "\(environment.wholeLog("restored.log"))")
        #expect(await sway.process.exited(timeout: .seconds(10)) != nil)
        #expect(await daemon.terminated() == 0)
    }

    @Test("Logout through the desktop portal (the real xdg-desktop-portal, a backend of the test's own): QUERY_END saves every app while they run, then restored answers with QueryEndResponse; a RUNNING after it is a cancelled logout")
    func portalQueryEndSaves() async throws {
        let environment = try await Environment.make()
        let root = environment.bus.directory.path
        let display = try VirtualDisplay(log: root + "/xvfb.log")
        let portal = try await DesktopPortal.start(on: environment.bus)

        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0"], environment: ["DISPLAY": display.display])
        _ = try await environment.waitForNotify("READY=1")
        let session = try await portal.monitorSession()
        #expect(environment.wholeLog("restored.log").contains("following the desktop portal's session monitor"))
        let admin = try await environment.admin()
        defer { admin.close() }
        try #"{"editorText":"typed before the portal's logout","selectedIndices":[0],"editorNoteID":"a"}"#
            .write(toFile: environment.notes + "/ui.json", atomically: true, encoding: .utf8)

        // The user asks to log out: QUERY_END.
        try await portal.setState(2, of: session)
        try await LogindInhibitorTests.eventually(within: .seconds(10)) { try await portal.queryEndResponses() == 1 }
        let app = try #require(try await admin.apps()["org.example.Notes"])
        #expect(app["LastTrigger"] == .string("logout"), "\(app)")
        #expect(app["LastOutcome"] == .string("saved"), "\(app)")
        #expect(environment.wholeLog("restored.log").contains("the session ends (the desktop portal's QUERY_END)"))

        // The user cancels: the session runs again.
        try await portal.setState(1, of: session)
        try await LogindInhibitorTests.eventually { environment.wholeLog("restored.log").contains("the logout was cancelled") }
        #expect(await daemon.terminated() == 0)
    }

    @Test("The portal's second is kept: with an app whose save hangs, restored answers QUERY_END at its limit and the other apps are saved; the slow save goes on (up to 8 s) and is told apart in the log")
    func portalLimitIsKept() async throws {
        let environment = try await Environment.make()
        let root = environment.bus.directory.path
        let display = try VirtualDisplay(log: root + "/xvfb.log")
        try environment.addPlugin("TestScenarioPlugin")
        let scenario = "org.restored.test.Scenario"
        let gate = root + "/gate"
        let portal = try await DesktopPortal.start(on: environment.bus)
        let daemon = try environment.startDaemon(
            log: "restored.log", arguments: ["--autosave-interval", "0", "--walk-timeout", "300", "--option", "\(scenario):save-gate=\(gate)"],
            environment: ["DISPLAY": display.display]
        )
        _ = try await environment.waitForNotify("READY=1")
        let session = try await portal.monitorSession()
        let admin = try await environment.admin()
        defer { admin.close() }

        try await portal.setState(2, of: session)
        try await LogindInhibitorTests.eventually(within: .seconds(10)) { try await portal.queryEndResponses() == 1 }
        // Answered although the scenario app is still saving.
        #expect(try await admin.apps()[scenario]?["Saving"] == .string("logout"))
        #expect(try await admin.apps()["org.example.Notes"]?["LastTrigger"] == .string("logout"))
        #expect(environment.wholeLog("restored.log").contains("saving at logout (the desktop portal's QUERY_END) took longer than 0.9 seconds; answering anyway; still saving, for up to 8.0 seconds in all: \(scenario)"))
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        try await LogindInhibitorTests.eventually { try await admin.apps()[scenario]?["LastTrigger"] == .string("logout") }
        #expect(await daemon.terminated() == 0)
    }

    @Test("Logout through XSMP (a real xfce4-session on Xvfb): restored registers with SESSION_MANAGER, and xfce4-session-logout's SaveYourself with shutdown saves every app before restored answers")
    func xsmpSaveYourselfSaves() async throws {
        let environment = try await Environment.make()
        let root = environment.bus.directory.path
        let display = try VirtualDisplay(log: root + "/xvfb.log")
        // xfconfd, activated on the test's bus.
        try FileManager.default.createDirectory(atPath: root + "/services", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/services/org.xfce.Xfconf.service", withDestinationPath: "/usr/share/dbus-1/services/org.xfce.Xfconf.service")
        // A failsafe session of xfwm4 alone, no prompt, no autostart.
        let config = root + "/xdg-config", home = root + "/home"
        let channels = config + "/xfce4/xfconf/xfce-perchannel-xml"
        for directory in [channels, config + "/autostart", home] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        try """
            <?xml version="1.0" encoding="UTF-8"?>
            <channel name="xfce4-session" version="1.0">
              <property name="general" type="empty">
                <property name="FailsafeSessionName" type="string" value="Failsafe"/>
                <property name="PromptOnLogout" type="bool" value="false"/>
                <property name="SaveOnExit" type="bool" value="false"/>
              </property>
              <property name="sessions" type="empty">
                <property name="Failsafe" type="empty">
                  <property name="IsFailsafe" type="bool" value="true"/>
                  <property name="Count" type="int" value="1"/>
                  <property name="Client0_Command" type="array"><value type="string" value="xfwm4"/></property>
                  <property name="Client0_Priority" type="int" value="15"/>
                  <property name="Client0_PerScreen" type="bool" value="false"/>
                </property>
              </property>
            </channel>
            """.write(toFile: channels + "/xfce4-session.xml", atomically: true, encoding: .utf8)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/etc/xdg/autostart")) ?? [] where entry.hasSuffix(".desktop") {
            try "[Desktop Entry]\nHidden=true\n".write(toFile: config + "/autostart/" + entry, atomically: true, encoding: .utf8)
        }
        var variables = ProcessInfo.processInfo.environment
        variables["DISPLAY"] = display.display
        variables["DBUS_SESSION_BUS_ADDRESS"] = environment.bus.address
        variables["XDG_CONFIG_HOME"] = config
        variables["HOME"] = home
        variables["XDG_CACHE_HOME"] = home + "/.cache"
        variables["XDG_DATA_HOME"] = home + "/.local/share"
        variables.removeValue(forKey: "SESSION_MANAGER")
        // xfconfd is started by the bus: it must read the test's configuration.
        let control = try await environment.bus.connect()
        defer { control.close() }
        _ = try await control.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus", member: "UpdateActivationEnvironment",
            arguments: [.dictionary(keySignature: "s", valueSignature: "s", ["XDG_CONFIG_HOME": config, "HOME": home, "DISPLAY": display.display].map {
                DBusDictionaryEntry(key: .string($0.key), value: .string($0.value))
            })]
        )
        let session = try ChildProcess("/usr/bin/xfce4-session", [], environment: variables, log: root + "/xfce4-session.log")
        // Its clients (xfwm4) by pid, then the session itself.
        var clients: Set<Int32> = []
        defer {
            for pid in clients { kill(pid, SIGKILL) }
            session.stop()
        }
        // Its address, as it gives it to its clients.
        var address = ""
        try await LogindInhibitorTests.eventually(within: .seconds(30)) {
            clients.formUnion(ProcProcess.children(of: session.pid))
            address = clients.lazy.compactMap { ProcProcess.environment(of: $0)["SESSION_MANAGER"] }.first ?? ""
            return !address.isEmpty
        }

        // restored runs as the same user, so libICE finds the session's
        // cookie in the same ~/.ICEauthority; here the session's HOME is the test's.
        let daemon = try environment.startDaemon(
            log: "restored.log", arguments: ["--autosave-interval", "0"],
            environment: ["DISPLAY": display.display, "SESSION_MANAGER": address, "ICEAUTHORITY": home + "/.ICEauthority"]
        )
        _ = try await environment.waitForNotify("READY=1")
        try await LogindInhibitorTests.eventually { environment.wholeLog("restored.log").contains("registered with the X session manager as ") }
        let admin = try await environment.admin()
        defer { admin.close() }
        try #"{"editorText":"typed before the Xfce logout","selectedIndices":[0],"editorNoteID":"a"}"#
            .write(toFile: environment.notes + "/ui.json", atomically: true, encoding: .utf8)

        clients.formUnion(ProcProcess.children(of: session.pid))
        let logout = try await CompletedCommand.run("/usr/bin/timeout", ["20", "/usr/bin/xfce4-session-logout", "--logout"], environment: variables, in: URL(fileURLWithPath: root))
        #expect(logout.status == 0, "\(logout.output)\(logout.error)")
        try await LogindInhibitorTests.eventually(within: .seconds(20)) {
            try await admin.apps()["org.example.Notes"]?["LastTrigger"] == .string("logout")
        }
        #expect(try await admin.apps()["org.example.Notes"]?["LastOutcome"] == .string("saved"))
        #expect(environment.wholeLog("restored.log").contains("the session ends (the X session manager's SaveYourself)"))
        // The session ends once restored has answered.
        #expect(await session.exited(timeout: .seconds(20)) != nil, "\(environment.wholeLog("restored.log"))")
        #expect(await daemon.terminated() == 0)
    }

    @Test("Logout through the session manager: QueryEndSession is answered, EndSession saves then answers, Stop ends the daemon")
    func sessionManagerLogout() async throws {
        let environment = try await Environment.make()
        let manager = try await DBusMock.gnomeSessionManager(on: environment.bus)
        let client = DBusMock.gnomeSessionClient
        let daemon = try environment.startDaemon(log: "restored.log")
        _ = try await environment.waitForNotify("READY=1")
        #expect(try await manager.calls(path: "/org/gnome/SessionManager", method: "RegisterClient") == [[.string("restored"), .string("")]])

        try await manager.emit(path: client, interface: "org.gnome.SessionManager.ClientPrivate", member: "QueryEndSession", signature: "u", [.uint32(0)])
        try await LogindInhibitorTests.eventually { try await manager.calls(path: client, method: "EndSessionResponse").count == 1 }
        #expect(!FileManager.default.fileExists(atPath: environment.archive))

        try await manager.emit(path: client, interface: "org.gnome.SessionManager.ClientPrivate", member: "EndSession", signature: "u", [.uint32(0)])
        try await LogindInhibitorTests.eventually { try await manager.calls(path: client, method: "EndSessionResponse").count == 2 }
        #expect(FileManager.default.fileExists(atPath: environment.archive))
        #expect(try await manager.calls(path: client, method: "EndSessionResponse").last == [.boolean(true), .string("")])

        // What changes after the logout save is not saved again at Stop: the
        // apps may have quit, and their state at EndSession is the one to keep.
        try #"{"editorText":"after the apps quit"}"#.write(toFile: environment.notes + "/ui.json", atomically: true, encoding: .utf8)
        try await manager.emit(path: client, interface: "org.gnome.SessionManager.ClientPrivate", member: "Stop", signature: "", [])
        #expect(await daemon.exited(timeout: .seconds(20)) == 0, "\(environment.log("restored.log"))")
        let store = ArchiveStore(directory: FilePath(environment.state))
        #expect(try store.read(try AppID("org.example.Notes")).archive.generation == 1)
        #expect(environment.log("restored.log").contains("not saving org.example.Notes again: saved at logout"))
    }

    @Test("A plugin slower than the suspend deadline does not keep the lock past it: its plugin host is killed then, the other apps are saved, the slow one is named, and its next save starts a new host")
    func slowPluginAtSuspend() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("TestScenarioPlugin")
        // A 1 s budget leaves a 750 ms deadline; the scenario app's save
        // waits until the test opens its gate.
        try await environment.logind.setProperty("InhibitDelayMaxUSec", .uint64(1_000_000))
        let gate = environment.bus.directory.appendingPathComponent("gate").path
        let daemon = try environment.startDaemon(
            log: "restored.log", arguments: ["--autosave-interval", "0", "--option", "org.restored.test.Scenario:save-gate=\(gate)"]
        )
        _ = try await environment.waitForNotify("READY=1")
        try await LogindInhibitorTests.eventually { try await environment.logind.inhibitors().count == 1 }
        let admin = try await environment.admin()
        defer { admin.close() }
        let changes = try await admin.connection.signals(matching: DBusMatchRule(
            sender: "org.restored1", path: "/org/restored1", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"
        ))
        var changed = changes.makeAsyncIterator()

        try await environment.logind.emit("PrepareForSleep", signature: "b", [.boolean(true)])
        try await LogindInhibitorTests.eventually { try await environment.logind.inhibitors().isEmpty }
        #expect(try await changed.next()?.arguments()[1].stringKeyedValue?["LockHeld"] == .boolean(false))
        // The lock went at the deadline; the other app is on disk; the slow
        // app's plugin host was killed then (nothing keeps running) and its
        // save is reported as failed, naming the deadline.
        #expect(FileManager.default.fileExists(atPath: environment.archive))
        try await LogindInhibitorTests.eventually {
            try await admin.apps()["org.restored.test.Scenario"]?["LastOutcome"] == .string("failed")
        }
        let scenario = try #require(try await admin.apps()["org.restored.test.Scenario"])
        #expect(scenario["LastDetail"]?.stringValue?.contains("did not finish the save within") == true)
        #expect(scenario["PluginHostPid"] == .uint32(0))
        #expect(environment.log("restored.log").contains("saving org.restored.test.Scenario failed: its plugin host did not finish the save"))

        try await environment.logind.emit("PrepareForSleep", signature: "b", [.boolean(false)])
        #expect(try await changed.next()?.arguments()[1].stringKeyedValue?["LockHeld"] == .boolean(true))
        // With the gate open, the next save starts a new plugin host and is written.
        #expect(FileManager.default.createFile(atPath: gate, contents: nil))
        #expect(try await admin.call("Save", [.strings(["org.restored.test.Scenario"])]) == [.uint32(1)])
        // Written; partial, as the scenario's twins share a path (R3).
        #expect(try await admin.apps()["org.restored.test.Scenario"]?["LastOutcome"] == .string("partial"))
        #expect(await daemon.terminated() == 0)
    }

    @Test("The daemon pings the watchdog at half of WATCHDOG_USEC once ready")
    func watchdog() async throws {
        let environment = try await Environment.make()
        let daemon = try environment.startDaemon(log: "restored.log", environment: ["WATCHDOG_USEC": "2000000"])
        let messages = try await environment.waitForNotify("WATCHDOG=1")
        let ready = messages.firstIndex { $0.split(separator: "\n").contains("READY=1") }
        let ping = messages.firstIndex { $0.split(separator: "\n").contains("WATCHDOG=1") }
        #expect(ready != nil && ping != nil && ready! < ping!, "\(messages)")
        #expect(await daemon.terminated() == 0)
    }

    @Test("The admin API: status, plugins, save, restore, ignore-snapshot, discard, named errors, foreign users refused")
    func adminAPI() async throws {
        let environment = try await Environment.make()
        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0"])
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        defer { admin.close() }
        let client = admin.connection
        func call(_ member: String, _ arguments: [DBusValue] = []) async throws -> [DBusValue] { try await admin.call(member, arguments) }
        func errorName(_ member: String, _ arguments: [DBusValue]) async -> String? { await admin.errorName(member, arguments) }

        let status = try #require(try await call("Status").first?.stringKeyedValue)
        #expect(status["LockHeld"] == .boolean(true))
        #expect(status["PluginsLoaded"] == .uint32(1))
        let plugins = try await call("ListPlugins").first?.arrayValue ?? []
        #expect(plugins.count == 1)

        let saved = try await client.signals(matching: DBusMatchRule(sender: "org.restored1", interface: "org.restored1.Manager", member: "AppSaved"))
        #expect(try await call("Save", [.strings([])]) == [.uint32(1)])
        var savedIterator = saved.makeAsyncIterator()
        #expect(try await savedIterator.next()?.arguments() == [.string("org.example.Notes"), .uint64(1), .string("request")])
        #expect(await errorName("Save", [.strings(["org..bad"])]) == "org.restored1.Error.InvalidAppId")
        #expect(await errorName("Save", [.strings(["org.example.Nope"])]) == "org.restored1.Error.UnknownApp")

        _ = try await call("SetIgnoreSnapshot", [.string("org.example.Notes"), .boolean(true)])
        let store = ArchiveStore(directory: FilePath(environment.state))
        #expect(try store.read(try AppID("org.example.Notes")).archive.ignoresSnapshot)
        #expect(try await call("Restore", [.strings(["org.example.Notes"]), .boolean(true)]) == [.uint32(1)])

        _ = try await call("Discard", [.string("org.example.Notes")])
        #expect(!FileManager.default.fileExists(atPath: environment.archive))
        #expect(await errorName("Discard", [.string("org.example.Notes")]) == "org.restored1.Error.NoArchive")
        #expect(await errorName("SetIgnoreSnapshot", [.string("org.example.Notes"), .boolean(true)]) == "org.restored1.Error.NoArchive")

        // Another user, on the same bus, is refused.
        let foreign = try ChildProcess(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "dbus-send", "--bus=\(environment.bus.address)",
                                 "--print-reply", "--dest=org.restored1", "/org/restored1", "org.restored1.Manager.Status"],
            log: environment.bus.directory.appendingPathComponent("foreign.log").path
        )
        #expect(await foreign.exited() != 0)
        let refusal = try String(contentsOfFile: environment.bus.directory.appendingPathComponent("foreign.log").path, encoding: .utf8)
        #expect(refusal.contains("restored serves only user"), "\(refusal)")
        #expect(await daemon.terminated() == 0)
    }

    @Test("Autosave writes an app's archive only when its state changed")
    func autosave() async throws {
        let environment = try await Environment.make()
        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "1"])
        _ = try await environment.waitForNotify("READY=1")
        try await LogindInhibitorTests.eventually { FileManager.default.fileExists(atPath: environment.archive) }
        let first = try Self.inode(of: environment.archive)

        // Idle: autosave runs, finds nothing changed, writes nothing.
        try await LogindInhibitorTests.eventually {
            environment.log("restored.log").components(separatedBy: "autosave: org.example.Notes unchanged").count > 2
        }
        #expect(try Self.inode(of: environment.archive) == first)

        // A change is written at the next autosave.
        try #"{"editorText":"changed while idle"}"#.write(toFile: environment.notes + "/ui.json", atomically: true, encoding: .utf8)
        try await LogindInhibitorTests.eventually { try Self.inode(of: environment.archive) != first }
        #expect(await daemon.terminated() == 0)
    }

    /// A file a test expected is not there.
    struct MissingFile: Error, CustomStringConvertible {
        let path: String
        var description: String { "\(path) does not exist" }
    }

    /// The inode of a file: a new one each time the store replaces it.
    static func inode(of path: String) throws -> UInt64 {
        var status = stat()
        guard stat(path, &status) == 0 else { throw MissingFile(path: path) }
        return UInt64(status.st_ino)
    }

    @Test("Without logind the daemon runs anyway, says so once, and still saves at SIGTERM")
    func withoutLogind() async throws {
        let environment = try await Environment.make()
        environment.logind.stop()
        let daemon = try environment.startDaemon(log: "restored.log")
        _ = try await environment.waitForNotify("READY=1")
        #expect(await daemon.terminated() == 0)
        #expect(FileManager.default.fileExists(atPath: environment.archive))
        let log = try String(contentsOfFile: environment.bus.directory.appendingPathComponent("restored.log").path, encoding: .utf8)
        #expect(log.components(separatedBy: "logind is not reachable").count == 2)
    }
}
