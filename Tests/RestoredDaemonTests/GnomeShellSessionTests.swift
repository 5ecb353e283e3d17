import Foundation
import ProcFiles
import RestoredDBus
import RestoredTestSupport
import Testing

/// The session plugin on a real headless GNOME Shell 43 (Wayland) with
/// restored's extension installed as `scripts/install` installs it, and
/// real foot terminals: each window back on its workspace, at its frame,
/// maximized where it was, through the daemon and a user manager played
/// by python3-dbusmock.
@Suite struct GnomeShellSessionTests {
    typealias Environment = DaemonIntegrationTests.Environment
    static let appID = "org.restored.Session"
    /// The package's top-level directory, found from this source file.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Installs the extension and the KWin script as `scripts/install` does, under `share`.
    static func installWindowPlaces(under share: String) async throws {
        let run = try await CompletedCommand.run(
            "/bin/bash", ["\(repository)/scripts/install-window-places", share], environment: ProcessInfo.processInfo.environment, in: URL(fileURLWithPath: repository)
        )
        try #require(run.status == 0, "scripts/install-window-places: \(run.output)\(run.error)")
    }

    /// A test environment with the session plugin, and a headless GNOME
    /// Shell on its bus with restored's extension installed and enabled.
    static func sessionWithExtension() async throws -> (Environment, HeadlessGnomeShell) {
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path
        try await installWindowPlaces(under: root + "/installed-share")
        let shell = try await HeadlessGnomeShell(
            root: root, bus: environment.bus, dataDirectories: [root + "/installed-share"], extensions: ["window-places-legacy@restored"]
        )
        return (environment, shell)
    }

    @Test("GNOME Shell and foot: three windows (one at its frame, one on workspace 2 at another, one maximized) are saved through the daemon and restored's extension, killed, and come back each on its workspace, at its frame, maximized where it was; nobody but restored may call the extension")
    func gnomeShellWindows() async throws {
        let footLock = try await SharedTestLock.acquire("foot")
        defer { footLock.release() }
        let (environment, shell) = try await Self.sessionWithExtension()
        defer { shell.stop() }
        let root = environment.bus.directory.path

        let (variables, manager) = try await TilingSessionTests.footSession(root: root, desktop: shell.clientEnvironment, environment: environment)
        defer { manager.stop() }

        // Each window as its user placed it.
        let places: [(name: String, workspace: Int32, frame: [Int32], maximized: Bool)] = [
            ("plain", 0, [100, 80, 600, 400], false),
            ("second", 1, [500, 300, 640, 360], false),
            ("maximized", 0, [200, 150, 500, 300], true),
        ]
        var terminals: [String: ChildProcess] = [:]
        defer { for terminal in terminals.values { terminal.stop() } }
        for place in places {
            let directory = root + "/\(place.name) dir"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            terminals[place.name] = try ChildProcess("/usr/bin/foot", ["/bin/sh", "-c", "cd \"$0\" && exec /bin/sh", directory], environment: variables, log: root + "/foot-\(place.name).log")
        }
        // Placed again until each place has held for 2 s (a foot slow to
        // start may commit the size it first chose after a move).
        var saved: [GnomeShellWindowSnapshot] = []
        var held = 0
        try await LogindInhibitorTests.eventually(within: .seconds(90)) {
            let windows = try await shell.windows(on: environment.bus)
            var all = true
            for place in places {
                let pid = terminals[place.name]!.pid
                guard let window = windows.first(where: { $0.pid == pid }) else {
                    all = false
                    continue
                }
                let there = window.workspace == place.workspace && window.maximized == place.maximized && (place.maximized || window.frame == place.frame)
                if !there {
                    all = false
                    try await shell.place(pid: pid, workspace: place.workspace, frame: place.frame, maximized: place.maximized, on: environment.bus)
                }
            }
            held = all ? held + 1 : 0
            saved = windows.map { window in GnomeShellWindowSnapshot(window: window, name: places.first { terminals[$0.name]!.pid == window.pid }?.name) }
            try await Task.sleep(for: .milliseconds(200))
            return held >= 10
        }
        let before = Dictionary(uniqueKeysWithValues: saved.compactMap { snapshot in snapshot.name.map { ($0, snapshot.window) } })
        #expect(before.count == 3, "\(saved)")

        // Only restored and the processes it starts may call the extension.
        let stranger = try await environment.bus.connect()
        defer { stranger.close() }
        await #expect(throws: DBusError.self, "a process that is not restored read the windows") {
            try await stranger.call(destination: "org.gnome.Shell", path: "/org/restored1/WindowPlaces", interface: "org.restored1.WindowPlaces", member: "Windows")
        }

        let (daemon, admin, _) = try await environment.startAndSave(Self.appID, environment: variables)
        admin.close()
        #expect(await daemon.terminated() == 0)
        for terminal in terminals.values { terminal.stop() }
        terminals = [:]
        try await LogindInhibitorTests.eventually { try await shell.windows(on: environment.bus).isEmpty }

        let (again, units, restored) = try await TilingSessionTests.nextLogin(
            restoring: Self.appID, count: 3, environment: environment, variables: variables, manager: manager
        )
        defer { for unit in units { if let pid = manager.spawned[unit.name] { kill(pid, SIGKILL) } } }
        var after: [HeadlessGnomeShell.Window] = []
        try await LogindInhibitorTests.eventually {
            after = try await shell.windows(on: environment.bus)
            return places.allSatisfy { place in
                guard let window = after.first(where: { $0.pid == restored[root + "/\(place.name) dir"] }) else { return false }
                return window.workspace == before[place.name]?.workspace && window.frame == before[place.name]?.frame && window.maximized == place.maximized
            }
        }
        for place in places {
            let window = after.first { $0.pid == restored[root + "/\(place.name) dir"] }
            #expect(window?.workspace == before[place.name]?.workspace && window?.frame == before[place.name]?.frame && window?.maximized == place.maximized,
                    "\(place.name): saved \(String(describing: before[place.name])), now \(String(describing: window)); \(environment.wholeLog("restored-2.log"))")
        }
        #expect(environment.wholeLog("restored-2.log").contains("placed 3 window(s) where they were"), "\(environment.log("restored-2.log"))")
        #expect(await again.terminated() == 0)
    }

    /// The GNOME Terminal servers on `bus` (each D-Bus activated there), and
    /// the directories of their tabs' shells.
    static func terminalServers(on bus: PrivateBus) -> [(pid: Int32, directories: Set<String>)] {
        ProcProcess.all().filter { pid in
            (ProcProcess.commandLine(of: pid) ?? []).first.map { $0.hasSuffix("/gnome-terminal-server") } == true
                && ProcProcess.environment(of: pid)["DBUS_SESSION_BUS_ADDRESS"] == bus.address
        }.map { pid in
            (pid, Set(ProcProcess.children(of: pid).compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\($0)/cwd") }))
        }
    }

    /// The tabs of each window of the GNOME Terminal server `server` on
    /// `bus`, as their titles (each tab's shell sets its directory as its
    /// title), by window id: each window's tabs made active in turn through
    /// its actions, as a user clicking through them, then its active tab
    /// set back.
    static func terminalTabs(of server: Int32, shell: HeadlessGnomeShell, on bus: PrivateBus) async throws -> [UInt64: [String]] {
        let connection = try await bus.connect()
        defer { connection.close() }
        func actions(_ path: String, _ member: String, _ arguments: [DBusValue]) async throws -> [DBusValue] {
            try await connection.call(destination: "org.gnome.Terminal", path: path, interface: "org.gtk.Actions", member: member, arguments: arguments)
        }
        func activeTab(_ path: String) async throws -> Int32? {
            try await actions(path, "Describe", [.string("active-tab")]).first?.structureValue?[2].arrayValue?.first?.int64Value.flatMap { Int32(exactly: $0) }
        }
        func activate(_ index: Int32, _ path: String) async throws {
            _ = try await actions(path, "SetState", [.string("active-tab"), .variant(.int32(index)), .dictionary(keySignature: "s", valueSignature: "v", [])])
        }
        var tabs: [UInt64: [String]] = [:]
        for window in try await shell.titles(on: bus) where window.pid == server {
            let active = try #require(try await activeTab(window.path))
            try await activate(-1, window.path)
            let last = try #require(try await activeTab(window.path))
            // The window's title once it holds a second (the last tab's);
            // then each tab's, which differs from the one before it.
            func title() async throws -> String { try await shell.titles(on: bus).first { $0.id == window.id }?.title ?? "" }
            var lastTitle = ""
            var held = 0
            try await LogindInhibitorTests.eventually {
                let now = try await title()
                held = now == lastTitle ? held + 1 : 0
                lastTitle = now
                try await Task.sleep(for: .milliseconds(100))
                return held >= 10 && now.hasPrefix("/")
            }
            var titles: [String] = []
            for index in 0 ... last {
                try await activate(index, window.path)
                let before = titles.last ?? lastTitle
                var now = lastTitle
                if index != last {
                    try await LogindInhibitorTests.eventually {
                        now = try await title()
                        return now.hasPrefix("/") && now != before
                    }
                }
                titles.append(now)
            }
            try await activate(active, window.path)
            tabs[window.id] = titles
        }
        return tabs
    }

    @Test(
        "GNOME Terminal on GNOME Shell: two windows of two tabs each (one on workspace 2), saved as the session ends, come back as two windows, each with its own tabs in its directories and order, on its workspace at its place (told by its search provider, each window's actions and titles; its server makes the windows, placed by its app id). Moving the second window away focuses the first, moving the first leaves the second focused: the server's list of its windows is in either order",
        arguments: [1, 0]
    )
    func gnomeTerminalWindows(movedAway: Int) async throws {
        // Another test's foot would be a running app of this test's session (foot.desktop is in it).
        let footLock = try await SharedTestLock.acquire("foot")
        defer { footLock.release() }
        let (environment, shell) = try await Self.sessionWithExtension()
        defer { shell.stop() }
        let root = environment.bus.directory.path
        // GNOME Terminal's server, D-Bus activated on the test's bus, as on a desktop's.
        try "[D-BUS Service]\nName=org.gnome.Terminal\nExec=/usr/libexec/gnome-terminal-server\n"
            .write(to: environment.bus.servicesDirectory.appendingPathComponent("org.gnome.Terminal.service"), atomically: true, encoding: .utf8)
        defer { for server in Self.terminalServers(on: environment.bus) { kill(server.pid, SIGKILL) } }
        // Each tab's shell (sh: the user's, as the launches say) shows the
        // directory it started in as its title (`ENV`, which GNOME Terminal
        // hands its tabs from the command that opened them).
        try "printf '\\033]0;%s\\007' \"$PWD\"\n".write(toFile: root + "/gnome-home/.shrc", atomically: true, encoding: .utf8)
        // GNOME Terminal 3.46 (Debian 12's) ships its search provider off:
        // the user's setting turns it on (later releases have it on), in
        // the keyfile the shell's settings are in, as the server reads them.
        let keyfile = root + "/gnome-home/.config/glib-2.0/settings/keyfile"
        try (try String(contentsOfFile: keyfile, encoding: .utf8) + "[org/gnome/terminal/legacy]\nshell-integration-enabled=true\n")
            .write(toFile: keyfile, atomically: true, encoding: .utf8)
        var activation = ProcessInfo.processInfo.environment
        activation["DBUS_SESSION_BUS_ADDRESS"] = environment.bus.address
        let backend = try await CompletedCommand.run(
            "/usr/bin/dbus-update-activation-environment", ["GSETTINGS_BACKEND=keyfile"], environment: activation, in: URL(fileURLWithPath: root)
        )
        #expect(backend.status == 0, "\(backend.output)\(backend.error)")
        let (variables, manager) = try await TilingSessionTests.footSession(
            root: root, desktop: shell.clientEnvironment.merging(["ENV": root + "/gnome-home/.shrc"]) { _, new in new }, environment: environment,
            entries: ["org.gnome.Terminal.desktop": "Name=Terminal\nExec=gnome-terminal\nDBusActivatable=true"]
        )
        defer { manager.stop() }
        let directories = (1 ... 4).map { root + "/tab \($0)" }
        for directory in directories { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        var client = variables
        client["DBUS_SESSION_BUS_ADDRESS"] = environment.bus.address
        for (index, pair) in [(directories[0], directories[1]), (directories[2], directories[3])].enumerated() {
            let open = try await CompletedCommand.run(
                "/usr/bin/gnome-terminal", ["--window", "--working-directory=\(pair.0)", "--tab", "--working-directory=\(pair.1)"], environment: client, in: URL(fileURLWithPath: root)
            )
            #expect(open.status == 0, "gnome-terminal: \(open.output)\(open.error)")
            try await LogindInhibitorTests.eventually { try await shell.windows(on: environment.bus).count == index + 1 }
        }
        // Each window at a place of its own on the workspace shown, until
        // both hold (GNOME Terminal sizes its windows by whole cells); then
        // one of them (`movedAway`) moved as it is to workspace 2. A new
        // size lands only once GTK draws, and a window on a workspace not
        // shown draws nothing: moved and resized there, it could stay
        // where it was.
        let frames: [[Int32]] = [[100, 80, 700, 450], [400, 250, 700, 450]]
        var saved: [HeadlessGnomeShell.Window] = []
        let place = { (windows: [HeadlessGnomeShell.Window]) in windows.map { [Int64($0.id), Int64($0.workspace), Int64($0.frame[0]), Int64($0.frame[1])] } }
        let hold = { (workspaces: [Int32], adjust: Bool) in
            var held = 0
            try await LogindInhibitorTests.eventually(within: .seconds(90)) {
                let before = saved
                saved = try await shell.windows(on: environment.bus).sorted { $0.id < $1.id }
                var all = saved.count == 2 && place(saved) == place(before)
                for (index, window) in saved.enumerated() where window.workspace != workspaces[index] || Array(window.frame.prefix(2)) != Array(frames[index].prefix(2)) {
                    all = false
                    // A window at its frame already is moved to its workspace only, at the size it has.
                    let frame = adjust ? frames[index] : Array(frames[index].prefix(2)) + Array(window.frame.suffix(2))
                    try await shell.place(window: window.id, workspace: workspaces[index], frame: frame, on: environment.bus)
                }
                held = all ? held + 1 : 0
                try await Task.sleep(for: .milliseconds(200))
                return held >= 10
            }
        }
        try await hold([0, 0], true)
        try await hold(movedAway == 1 ? [0, 1] : [1, 0], false)
        let server = try #require(Self.terminalServers(on: environment.bus).first)
        #expect(server.directories == Set(directories))
        let before = try await Self.terminalTabs(of: server.pid, shell: shell, on: environment.bus)
        let windowTitles = try await shell.titles(on: environment.bus)
        try #require(
            saved.map { before[$0.id] ?? [] } == [[directories[0], directories[1]], [directories[2], directories[3]]],
            "\(before); the server's HOME: \(ProcProcess.environment(of: server.pid)["HOME"] ?? "-"), its shells: \(ProcProcess.children(of: server.pid).map { (ProcProcess.commandLine(of: $0) ?? []) + [ProcProcess.environment(of: $0)["ENV"] ?? "-", ProcProcess.environment(of: $0)["SHELL"] ?? "-"] }), the windows: \(windowTitles)"
        )

        // The session ends: logind says closing, and restored is stopped;
        // the server's windows still run around its save.
        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0"], environment: variables)
        _ = try await environment.waitForNotify("READY=1")
        try await environment.logind.setUser(getuid(), state: "closing")
        #expect(await daemon.terminated() == 0)
        #expect(environment.wholeLog("restored.log").contains("the session ends"), "\(environment.wholeLog("restored.log"))")
        for server in Self.terminalServers(on: environment.bus) { kill(server.pid, SIGKILL) }
        try await LogindInhibitorTests.eventually { try await shell.windows(on: environment.bus).isEmpty }

        try await environment.logind.setUser(getuid(), state: "active")
        let again = try environment.startDaemon(log: "restored-2.log", arguments: ["--autosave-interval", "0"], environment: variables)
        _ = try await environment.waitForNotify("READY=1")
        let control = try await environment.admin()
        defer { control.close() }
        #expect(try await control.call("Restore", [.strings([Self.appID]), .boolean(true)]) == [.uint32(1)], "\(environment.log("restored-2.log"))")
        try await LogindInhibitorTests.eventually {
            Self.terminalServers(on: environment.bus).map(\.directories) == [Set(directories)]
        }
        // Each window at its place with its own tabs; its size is GNOME
        // Terminal's own (it sizes its window to whole cells, and again as
        // the tabs are added after it maps).
        var after: [HeadlessGnomeShell.Window] = []
        let position = { (window: HeadlessGnomeShell.Window) in [window.workspace] + Array(window.frame.prefix(2)) }
        try await LogindInhibitorTests.eventually {
            after = try await shell.windows(on: environment.bus).sorted { $0.id < $1.id }
            return after.map(position) == saved.map(position)
        }
        #expect(after.map(position) == saved.map(position),
                "saved \(saved), now \(after); \(environment.wholeLog("restored-2.log")); the shell said: \(shell.log(containing: "restored"))")
        let restoredServer = try #require(Self.terminalServers(on: environment.bus).first)
        var tabs: [UInt64: [String]] = [:]
        try await LogindInhibitorTests.eventually {
            tabs = try await Self.terminalTabs(of: restoredServer.pid, shell: shell, on: environment.bus)
            return tabs.count == 2
        }
        #expect(after.map { tabs[$0.id] ?? [] } == [[directories[0], directories[1]], [directories[2], directories[3]]],
                "\(tabs); \(environment.wholeLog("restored.log"))")
        #expect(await again.terminated() == 0)
    }

    @Test("Hostile places run nothing in the shell: a rule's monitor and desktop ids holding JavaScript, a workspace number of 2^31-1 and a frame past any monitor reach the extension as typed values; the window lands inside the primary monitor on a workspace that exists, and the shell lives on")
    func hostilePlaces() async throws {
        let footLock = try await SharedTestLock.acquire("foot")
        defer { footLock.release() }
        let (environment, shell) = try await Self.sessionWithExtension()
        defer { shell.stop() }
        let root = environment.bus.directory.path
        let marker = root + "/ran"
        let payload = "'); imports.gi.GLib.file_set_contents('\(marker)', 'x'); ('"
        // This test plays restored: the extension answers the owner of org.restored1.
        let restored = try await environment.bus.connect()
        defer { restored.close() }
        try await restored.requestName("org.restored1")
        let entry = root + "/share/applications/foot.desktop"
        let rules: [DBusValue] = [
            .properties([
                ("id", .string("0.0")), ("launched-file", .string(entry)), ("launch", .uint32(0)), ("desktop-id", .string(payload)),
                ("workspace", .int32(Int32.max)), ("monitor", .string(payload)),
                ("x", .int32(5000)), ("y", .int32(4000)), ("width", .int32(600)), ("height", .int32(400)),
            ]),
        ]
        _ = try await restored.call(
            destination: "org.gnome.Shell", path: "/org/restored1/WindowPlaces", interface: "org.restored1.WindowPlaces", member: "SetRules",
            arguments: [.array(elementSignature: "a{sv}", rules), .uint32(60)]
        )
        var variables = ProcessInfo.processInfo.environment
        variables.merge(shell.clientEnvironment) { _, new in new }
        variables["GIO_LAUNCHED_DESKTOP_FILE"] = entry
        variables["HOME"] = root
        let foot = try ChildProcess("/usr/bin/foot", ["/bin/sh"], environment: variables, log: root + "/foot.log")
        defer { foot.stop() }
        var window: HeadlessGnomeShell.Window?
        try await LogindInhibitorTests.eventually {
            window = try await shell.windows(on: environment.bus).first { $0.pid == foot.pid }
            return window.map { $0.frame[0] + $0.frame[2] <= 1280 && $0.frame[1] + $0.frame[3] <= 800 && $0.frame[2] == 600 } ?? false
        }
        let applied = try await restored.call(destination: "org.gnome.Shell", path: "/org/restored1/WindowPlaces", interface: "org.restored1.WindowPlaces", member: "Applied")
        #expect(applied.first?.arrayValue?.count == 1, "\(applied)")
        #expect(window.map { $0.frame[0] + $0.frame[2] <= 1280 && $0.frame[1] + $0.frame[3] <= 800 } == true, "\(String(describing: window))")
        #expect((window?.workspace ?? .max) < 64, "\(String(describing: window))")
        #expect(!FileManager.default.fileExists(atPath: marker), "a saved string ran in the shell")
        // The shell still answers.
        #expect(try await shell.windows(on: environment.bus).contains { $0.pid == foot.pid })
    }

    @Test("restored-ctl doctor on GNOME Shell: says the extension is not installed, or installed and not enabled with the one command that enables it, or enabled once that command ran")
    func doctorOnGnomeShell() async throws {
        let environment = try await Environment.make()
        let root = environment.bus.directory.path
        try await Self.installWindowPlaces(under: root + "/installed-share")
        let shell = try await HeadlessGnomeShell(root: root, bus: environment.bus, dataDirectories: [root + "/installed-share"], extensions: [])
        defer { shell.stop() }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(shell.clientEnvironment) { _, new in new }
        variables["DBUS_SESSION_BUS_ADDRESS"] = environment.bus.address
        variables["DBUS_SYSTEM_BUS_ADDRESS"] = environment.bus.address
        variables["HOME"] = root
        variables["XDG_DATA_HOME"] = root + "/data-home"
        variables["XDG_DATA_DIRS"] = root + "/installed-share"
        let doctor = { (variables: [String: String]) in
            try await CompletedCommand.run(BuildProducts.executable("restored-ctl"), ["doctor", "--plugin-dir", root + "/no-plugins"], environment: variables, in: URL(fileURLWithPath: root))
        }
        let uuid = "window-places-legacy@restored"
        var missing = variables
        missing["XDG_DATA_DIRS"] = root + "/elsewhere"
        let notInstalled = try await doctor(missing)
        #expect(notInstalled.output.contains("GNOME Shell extension: GNOME Shell 43.9 runs, but restored's extension \(uuid) is not installed"), "\(notInstalled.output)\(notInstalled.error)")
        let disabled = try await doctor(variables)
        #expect(disabled.output.contains("GNOME Shell extension: \(uuid) is installed in \(root)/installed-share/gnome-shell/extensions/\(uuid) but not enabled"), "\(disabled.output)\(disabled.error)")
        #expect(disabled.output.contains("gnome-extensions enable \(uuid)"), "\(disabled.output)")
        let enable = try await CompletedCommand.run("/usr/bin/gnome-extensions", ["enable", uuid], environment: variables, in: URL(fileURLWithPath: root))
        #expect(enable.status == 0, "gnome-extensions enable: \(enable.output)\(enable.error)")
        let enabled = try await doctor(variables)
        #expect(enabled.output.contains("GNOME Shell extension: \(uuid) is enabled in GNOME Shell 43.9"), "\(enabled.output)\(enabled.error)")
    }

    @Test("The extension's ES module entry (GNOME 45 and later, which this machine cannot run) loads its core with gjs, the shell's own import aside; each entry's metadata lists the majors it is for, and keeps it enabled on the lock screen")
    func extensionEntries() async throws {
        let directory = try TemporaryTestDirectory()
        let share = directory.path + "/share"
        try await Self.installWindowPlaces(under: share)
        let modules = share + "/gnome-shell/extensions/window-places@restored"
        let legacy = share + "/gnome-shell/extensions/window-places-legacy@restored"
        for (path, majors) in [(modules, ["45", "46", "47", "48", "49", "50"]), (legacy, ["43", "44"])] {
            let metadata = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path + "/metadata.json"))) as? [String: Any]
            #expect(metadata?["uuid"] as? String == URL(fileURLWithPath: path).lastPathComponent)
            #expect(metadata?["shell-version"] as? [String] == majors)
            // GNOME disables an extension that names no session modes at
            // every screen lock, which would drop the login's rules and
            // leave a window it keeps unseen hidden.
            #expect(metadata?["session-modes"] as? [String] == ["user", "unlock-dialog"])
        }
        // The shell's Extension class, which only the shell has, stood in for.
        try "export class Extension { constructor(metadata) { this.metadata = metadata; } }\n"
            .write(toFile: directory.path + "/shell-extension.js", atomically: true, encoding: .utf8)
        let entry = try String(contentsOfFile: modules + "/extension.js", encoding: .utf8)
            .replacingOccurrences(of: "resource:///org/gnome/shell/extensions/extension.js", with: "file://\(directory.path)/shell-extension.js")
            .replacingOccurrences(of: "'./core.js'", with: "'file://\(modules)/core.js'")
        try entry.write(toFile: directory.path + "/entry.js", atomically: true, encoding: .utf8)
        try "import Entry from 'file://\(directory.path)/entry.js';\nprint(typeof Entry, new Entry({}).metadata !== undefined);\n"
            .write(toFile: directory.path + "/run.js", atomically: true, encoding: .utf8)
        var variables = ProcessInfo.processInfo.environment
        variables["GI_TYPELIB_PATH"] = "/usr/lib/x86_64-linux-gnu/mutter-11:/usr/lib/gnome-shell"
        variables["LD_LIBRARY_PATH"] = "/usr/lib/x86_64-linux-gnu/mutter-11:/usr/lib/gnome-shell"
        let run = try await CompletedCommand.run("/usr/bin/gjs", ["-m", directory.path + "/run.js"], environment: variables, in: URL(fileURLWithPath: directory.path))
        #expect(run.status == 0 && run.output == "function true\n", "gjs: \(run.output)\(run.error)")
    }
}

/// A window of the test, by the name of the place it was given.
struct GnomeShellWindowSnapshot: CustomStringConvertible {
    var window: HeadlessGnomeShell.Window
    var name: String?
    var description: String { "\(name ?? "?"): \(window)" }
}
