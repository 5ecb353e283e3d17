import Foundation
import RestoredArchive
import RestoredDBus
import RestoredEngine
import UnitLaunching
import RestoredTestSupport
import SystemPackage
import TerminalPrograms
import Testing
import TmuxControl
import ProcFiles

/// restored installed by `scripts/install` under a prefix of the test's
/// and run as its unit by a real systemd user manager (``UserManager``):
/// the unit file exactly as installed, its sandbox really applied, and
/// the unit stopped by systemd as at logout.
@Suite struct InstalledUnitTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let configuration = URL(fileURLWithPath: BuildProducts.directory).lastPathComponent == "release" ? "release" : "debug"

    /// A user manager with restored installed under `PREFIX=<its directory>/prefix`
    /// (what was built, not built again), its unit linked for the user
    /// with its output appended to `restored.log`, and a private
    /// `TMUX_TMPDIR` and `SHELL=/bin/sh` set in the manager for its units.
    /// With `inotifyUsedUp`, restored runs in a user namespace of its own
    /// whose `max_inotify_instances` is 0: each inotify_init1 fails with
    /// EMFILE, as when the user's instances are used up by other programs
    /// (the unit's `RestrictNamespaces=` is lifted for that alone).
    static func installed(arguments: [String] = [], inotifyUsedUp: Bool = false) async throws -> Installation {
        let manager = try await UserManager()
        let tmuxDirectory = manager.directory + "/tmux"
        try FileManager.default.createDirectory(atPath: tmuxDirectory + "/tmux-\(getuid())", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = ["TMUX_TMPDIR": tmuxDirectory, "SHELL": "/bin/sh"]
        let prefix = manager.directory + "/prefix"
        var variables = ProcessInfo.processInfo.environment
        variables["PREFIX"] = prefix
        variables["CONFIGURATION"] = configuration
        variables["RESTORED_SKIP_BUILD"] = "1"
        let install = try await CompletedCommand.run("/bin/bash", ["\(repository)/scripts/install"], environment: variables, in: URL(fileURLWithPath: manager.directory))
        try #require(install.status == 0, "scripts/install: \(install.output)\(install.error)")
        let log = manager.directory + "/restored.log"
        try FileManager.default.createDirectory(atPath: manager.unitDirectory + "/restored.service.d", withIntermediateDirectories: true)
        var dropIn = "[Service]\nStandardOutput=append:\(log)\nStandardError=append:\(log)\n"
        let command = ([prefix + "/bin/restored"] + arguments).joined(separator: " ")
        if inotifyUsedUp {
            dropIn += "RestrictNamespaces=no\nExecStart=\nExecStart=/usr/bin/unshare --user --map-root-user /bin/sh -c 'echo 0 > /proc/sys/user/max_inotify_instances && exec \(command)'\n"
        } else if !arguments.isEmpty {
            dropIn += "ExecStart=\nExecStart=\(command)\n"
        }
        try dropIn.write(toFile: manager.unitDirectory + "/restored.service.d/log.conf", atomically: true, encoding: .utf8)
        try await manager.systemctl(["link", prefix + "/lib/systemd/user/restored.service"])
        try await manager.systemctl(["set-environment"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
        try await manager.systemctl(["daemon-reload"])
        var tmuxEnvironment = manager.clientEnvironment
        tmuxEnvironment.merge(environment) { _, new in new }
        let socket = tmuxDirectory + "/tmux-\(getuid())/default"
        let tmux = try #require(TmuxRunner(socket: FilePath(socket), environment: tmuxEnvironment))
        return Installation(manager: manager, prefix: prefix, log: log, tmux: tmux)
    }

    /// A user manager with restored installed, and the test's tmux server
    /// (`TMUX_TMPDIR` in the manager's directory, set for its units too).
    struct Installation {
        let manager: UserManager
        let prefix: String
        let log: String
        let tmux: TmuxRunner

        /// restored's main process as the manager says; 0 when it runs none.
        func mainPID() async throws -> Int32 {
            Int32(try await manager.systemctl(["show", "-p", "MainPID", "--value", "restored.service"]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        }
    }

    @Test("systemctl --user stop restored (a logout, an upgrade) saves every app: the plugin hosts live until the save is done, and restored and its hosts run under the unit's seccomp filter", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func stopSaves() async throws {
        let installation = try await Self.installed()
        let (manager, prefix, log, server) = (installation.manager, installation.prefix, installation.log, installation.tmux)
        defer { manager.stop() }
        defer { _ = try? server.run(["kill-server"]) }
        _ = try server.run(["new-session", "-d", "-s", "work", "-x", "100", "-y", "30"])

        let start = try await manager.systemctl(["start", "restored.service"])
        #expect(start.status == 0, "\(start.error) \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        let shown = try await manager.systemctl(["show", "-p", "MainPID", "--value", "restored.service"])
        let pid = try #require(Int32(shown.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        // The plugins of its own prefix, each in a plugin host, all sandboxed.
        var hosts: [Int32] = []
        try await LogindInhibitorTests.eventually {
            hosts = ProcProcess.children(of: pid).filter { (ProcProcess.commandLine(of: $0) ?? []).first?.hasSuffix("restored-plugin-host") == true }
            return hosts.count == 3
        }
        #expect(ProcProcess.status("Seccomp", of: pid) == "2")
        #expect(hosts.map { ProcProcess.status("Seccomp", of: $0) } == ["2", "2", "2"])
        #expect(hosts.allSatisfy { (ProcProcess.commandLine(of: $0) ?? []).last?.hasPrefix(prefix + "/lib/restored/plugins/") == true })

        // What a logout and every package upgrade do.
        let stop = try await manager.systemctl(["stop", "restored.service"])
        #expect(stop.status == 0)
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.contains("saved org.restored.Tmux"), "\(text)")
        #expect(!text.contains("crashed with SIGTERM"), "\(text)")
        #expect(FileManager.default.fileExists(atPath: manager.home + "/.local/state/restored/org.restored.Tmux/archive"), "\(text)")
        // Nothing of the unit is left.
        #expect(hosts.allSatisfy { kill($0, 0) != 0 || ProcProcess.state(of: $0) == "Z" })
    }

    @Test("R6: a logout where the whole user manager exits at once (restored and a tmux server in its own unit stopped together) is a session end, and keeps the app saved before", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func managerExits() async throws {
        let installation = try await Self.installed()
        let (manager, prefix, log, server) = (installation.manager, installation.prefix, installation.log, installation.tmux)
        defer { manager.stop() }
        defer { _ = try? server.run(["kill-server"]) }
        // The tmux server in a unit of the manager, as a restore starts it.
        let connection = try await DBusConnection.connect(to: .address(manager.busAddress))
        defer { connection.close() }
        let unit = UnitName.service(launcher: "test", applicationID: "tmux")
        _ = try await UserUnitLauncher(connection: connection, environment: server.environment).launch(LaunchRequest(
            unitName: unit, description: "tmux", command: [server.executable.string, "-D", "-S", server.socket.string], workingDirectory: FilePath(manager.home)))
        try await LogindInhibitorTests.eventually { (try? server.run(["new-session", "-d", "-s", "work"])) != nil }
        #expect(try await manager.systemctl(["start", "restored.service"]).status == 0)
        let save = try await CompletedCommand.run(prefix + "/bin/restored-ctl", ["save", "org.restored.Tmux"], environment: manager.clientEnvironment, in: URL(fileURLWithPath: manager.directory))
        #expect(save.status == 0, "\(save.output)\(save.error)")

        // Logout: every unit stops together, tmux's with restored's.
        try await manager.exit()
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let archive = try ArchiveStore(directory: FilePath(manager.home + "/.local/state/restored")).read(try AppID("org.restored.Tmux")).archive
        #expect(archive.objects.contains { $0.path.description == "default/work" }, "\(archive.objects.map(\.path.description)) \(text)")
        #expect(!text.contains("crashed"), "\(text)")
        // restored learnt of the session's end from the manager, over the
        // bus that now outlives it, and told the plugin so.
        #expect(text.contains("the session ends (the user manager is stopping)"), "\(text)")
    }

    @Test("A call to org.restored1 starts the unit through D-Bus activation (the installed org.restored1.service, SystemdService=restored.service), Type=notify with its watchdog", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func busActivation() async throws {
        let installation = try await Self.installed()
        let manager = installation.manager
        defer { manager.stop() }
        // Where the session bus looks for activatable services: $XDG_DATA_HOME/dbus-1/services.
        let services = manager.home + "/.local/share/dbus-1/services"
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: installation.prefix + "/share/dbus-1/services/org.restored1.service", toPath: services + "/org.restored1.service")
        try await manager.systemctl(["restart", "dbus.service"])
        #expect(try await manager.systemctl(["is-active", "restored.service"]).output.hasPrefix("inactive"))

        let status = try await CompletedCommand.run(installation.prefix + "/bin/restored-ctl", ["status"], environment: manager.clientEnvironment, in: URL(fileURLWithPath: manager.directory))
        #expect(status.status == 0, "\(status.output)\(status.error)")
        #expect(try await manager.systemctl(["is-active", "restored.service"]).output.hasPrefix("active"))
        let shown = try await manager.systemctl(["show", "-p", "Type", "-p", "WatchdogUSec", "-p", "NotifyAccess", "restored.service"]).output
        #expect(shown.contains("Type=notify") && shown.contains("WatchdogUSec=30s") && shown.contains("NotifyAccess=main"), "\(shown)")
    }

    @Test("What the installed restored brings back runs outside its sandbox: the tmux server it restores is a transient unit of the real user manager in app.slice, with no seccomp filter, while restored keeps its own", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func restoredOutsideTheSandbox() async throws {
        let installation = try await Self.installed()
        let (manager, prefix, server) = (installation.manager, installation.prefix, installation.tmux)
        defer { manager.stop() }
        defer { _ = try? server.run(["kill-server"]) }
        _ = try server.run(["new-session", "-d", "-s", "work", "-x", "100", "-y", "30"])
        #expect(try await manager.systemctl(["start", "restored.service"]).status == 0)
        let control = { (arguments: [String]) in
            try await CompletedCommand.run(prefix + "/bin/restored-ctl", arguments, environment: manager.clientEnvironment, in: URL(fileURLWithPath: manager.directory))
        }
        let save = try await control(["save", "org.restored.Tmux"])
        #expect(save.status == 0, "\(save.output)\(save.error)")
        _ = try server.run(["kill-server"])
        let restore = try await control(["restore", "org.restored.Tmux"])
        #expect(restore.status == 0, "\(restore.output)\(restore.error) \((try? String(contentsOfFile: installation.log, encoding: .utf8)) ?? "")")

        let pid = try #require(Int32(try server.run(["display-message", "-p", "-t", "=work:", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(ProcProcess.status("Seccomp", of: pid) == "0")
        let cgroup = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
        #expect(cgroup.contains("/app.slice/app-restored-tmux@"), "\(cgroup)")
        let main = try #require(Int32(try await manager.systemctl(["show", "-p", "MainPID", "--value", "restored.service"]).output.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(ProcProcess.status("Seccomp", of: main) == "2")
    }

    @Test("R7: restored restarted while the session runs (an upgrade's restart, a crash that Restart=on-failure answers) is a recovery: the live tmux server is left as it is, no second one is started, and its archive stays", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func restartIsRecovery() async throws {
        let installation = try await Self.installed()
        let (manager, prefix, server) = (installation.manager, installation.prefix, installation.tmux)
        defer { manager.stop() }
        defer { _ = try? server.run(["kill-server"]) }
        _ = try server.run(["new-session", "-d", "-s", "work"])
        #expect(try await manager.systemctl(["start", "restored.service"]).status == 0)
        let control = { (arguments: [String]) in
            try await CompletedCommand.run(prefix + "/bin/restored-ctl", arguments, environment: manager.clientEnvironment, in: URL(fileURLWithPath: manager.directory))
        }
        #expect(try await control(["save", "org.restored.Tmux"]).status == 0)
        let store = ArchiveStore(directory: FilePath(manager.home + "/.local/state/restored"))
        let saved = try store.read(try AppID("org.restored.Tmux")).archive
        // The user goes on: a session the archive does not have.
        _ = try server.run(["new-session", "-d", "-s", "later"])
        let mainPID = { try await installation.mainPID() }
        let first = try await mainPID()

        #expect(try await manager.systemctl(["restart", "restored.service"]).status == 0)
        let restarted = try await mainPID()
        // A crash: systemd starts it again after RestartSec.
        kill(restarted, SIGKILL)
        try await LogindInhibitorTests.eventually(within: .seconds(20)) {
            let now = (try? await mainPID()) ?? 0
            guard now != 0, now != restarted else { return false }
            let active = try await manager.systemctl(["is-active", "restored.service"]).output
            return active.hasPrefix("active")
        }
        #expect(first != restarted)

        let log = (try? String(contentsOfFile: installation.log, encoding: .utf8)) ?? ""
        #expect(log.components(separatedBy: "restored started again during the login").count == 3, "\(log)")
        #expect(try server.run(["list-sessions", "-F", "#{session_name}"]) == "later\nwork\n")
        let units = try await manager.systemctl(["list-units", "--all", "--no-legend", "app-restored-*"]).output
        #expect(units.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(units)")
        let apps = try await control(["apps"])
        #expect(apps.output.contains("live"), "\(apps.output)")
        // The restart's stop saved what runs (restored stopping alone); the
        // crash saved nothing; no restore touched the archive's count.
        let reading = try store.read(try AppID("org.restored.Tmux"))
        let now = reading.archive
        #expect(now.generation == saved.generation + 1)
        #expect(reading.restoreAttempts == 0)
        #expect(now.objects.contains { $0.path.description == "default/later" })
    }

    @Test("An upgrade to a second version while restored runs (plugins, plugin host and executable replaced on disk, as dpkg renames new files over them): restored says both versions, the new plugin host serves the old daemon, restored saves every app as at a stop, and exits for the unit's Restart=on-failure to start the new one, a recovery that leaves the live tmux server as it is; with the user's inotify instances used up, the next save's plugin host of the new version tells it", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"), arguments: [false, true])
    func upgradeRestarts(inotifyUsedUp: Bool) async throws {
        let installation = try await Self.installed(inotifyUsedUp: inotifyUsedUp)
        let (manager, prefix, server) = (installation.manager, installation.prefix, installation.tmux)
        defer { manager.stop() }
        defer { _ = try? server.run(["kill-server"]) }
        _ = try server.run(["new-session", "-d", "-s", "work"])
        #expect(try await manager.systemctl(["start", "restored.service"]).status == 0)
        let mainPID = { try await installation.mainPID() }
        let first = try await mainPID()
        let store = ArchiveStore(directory: FilePath(manager.home + "/.local/state/restored"))
        // Ready: it has restored what it had (nothing) and serves its API.
        try await LogindInhibitorTests.eventually(within: .seconds(30)) {
            try await CompletedCommand.run(prefix + "/bin/restored-ctl", ["status"], environment: manager.clientEnvironment, in: URL(fileURLWithPath: manager.directory)).status == 0
        }
        let log = { (try? String(contentsOfFile: installation.log, encoding: .utf8)) ?? "" }
        // Without inotify, the upgrade service says so when it begins. (A
        // watch that begins after the upgrade sees the file replaced then.)
        try await LogindInhibitorTests.eventually(within: .seconds(30)) {
            !inotifyUsedUp || log().contains("cannot watch \(prefix)/bin for an upgrade of restored (Too many open files); restored looks at \(prefix)/bin/restored once a minute instead")
        }
        #expect(log().contains("cannot watch") == inotifyUsedUp, "\(log())")

        // The upgrade to a second version, 9.9.9 (this build with another
        // version in the runtime record of each of its images): the plugins
        // and the plugin host first, then the executable, each a new file
        // renamed over the old as dpkg does. Written by objcopy, not this
        // process: a child another test spawns meanwhile would inherit a
        // file this process holds open for writing, and exec of it would
        // fail with ETXTBSY.
        let newVersion = RuntimeRecordStamp.recordText(version: "9.9.9")
        let plugins = prefix + "/lib/restored/plugins"
        let files = try FileManager.default.contentsOfDirectory(atPath: plugins).filter { $0.hasSuffix(".so") }.map { plugins + "/" + $0 }
            + [prefix + "/libexec/restored/restored-plugin-host", prefix + "/bin/restored"]
        for file in files {
            try RuntimeRecordStamp.copy(file, to: file + ".dpkg-new", recordText: newVersion)
            #expect(rename(file + ".dpkg-new", file) == 0)
        }
        // A hang guard: the new version's --version, the save and RestartSec
        // all take longer on a loaded machine; without inotify, the next
        // autosave (within 60 s) starts the plugin hosts of the new version.
        try await LogindInhibitorTests.eventually(within: .seconds(150)) {
            let now = (try? await mainPID()) ?? 0
            guard now != 0, now != first else { return false }
            return try await manager.systemctl(["is-active", "restored.service"]).output.hasPrefix("active")
        }
        if inotifyUsedUp {
            // Whichever came first: the look at the file, or the next
            // autosave's plugin host of the new version.
            let seen = log().contains("restored \(RestoredVersion.string) was replaced on disk by restored 9.9.9: restored restarts to run it once no save runs")
                || log().contains("and restored 9.9.9 is on disk: restored restarts to run it once no save runs")
            #expect(seen, "\(log())")
        } else {
            #expect(log().contains("restored \(RestoredVersion.string) was replaced on disk by restored 9.9.9: restored restarts to run it once no save runs"), "\(log())")
        }
        let text = log()
        // The save before the restart met the new plugin host of tmux's new
        // build: of the same protocol, it served.
        #expect(text.contains("org.restored.Tmux: its plugin host is of another restored"), "\(text)")
        // The new daemon is the new version.
        let status = try await CompletedCommand.run(prefix + "/bin/restored-ctl", ["status", "--json"], environment: manager.clientEnvironment, in: URL(fileURLWithPath: manager.directory))
        #expect(status.output.contains("\"9.9.9\""), "\(status.output)")
        #expect(text.contains("restored started again during the login"), "\(text)")
        // The stop before the restart saved the live server; the recovery left it alone.
        #expect(try store.read(try AppID("org.restored.Tmux")).archive.objects.contains { $0.path.description == "default/work" })
        #expect(try server.run(["list-sessions", "-F", "#{session_name}"]) == "work\n")
        let restarts = try await manager.systemctl(["show", "-p", "NRestarts", "--value", "restored.service"]).output
        #expect(restarts.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
    }

    @Test("R7: with the user's inotify instances used up, a desktop that starts no graphical-session.target (an X server whose DISPLAY is imported into the manager, as startx from a console), there only after the looks that follow restored's start, is found by restored's look once a minute; once its server exits, the next one on the same display is a new desktop", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func desktopFoundWithoutInotify() async throws {
        let installation = try await Self.installed(inotifyUsedUp: true)
        let manager = installation.manager
        defer { manager.stop() }
        #expect(try await manager.systemctl(["start", "restored.service"]).status == 0)
        let log = { (try? String(contentsOfFile: installation.log, encoding: .utf8)) ?? "" }
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { log().contains("cannot watch display sockets") }
        // Past the looks that follow restored's start (after 1, 2, 4 ... 64
        // s: 127 s in all).
        try await Task.sleep(for: .seconds(135))
        var first: VirtualDisplay? = try VirtualDisplay(log: manager.directory + "/xvfb-1.log")
        let display = try #require(first?.display)
        try await manager.systemctl(["set-environment", "DISPLAY=\(display)"])
        let found = "the desktop is there: \(display) (a look once a minute, as display sockets cannot be watched)"
        try await LogindInhibitorTests.eventually(within: .seconds(90)) { log().contains(found) }
        #expect(log().contains(found), "\(log())")

        // Its X server exits (heard on restored's connection to it, or, where
        // a loaded machine let that connection fail, by the next look); the
        // next server is started on the same display.
        first = nil
        try await LogindInhibitorTests.eventually(within: .seconds(90)) { log().contains("the desktop on \(display) ended") }
        #expect(log().contains("the desktop on \(display) ended"), "\(log())")
        let second = try VirtualDisplay(log: manager.directory + "/xvfb-2.log", number: Int(display.dropFirst())!)
        try await LogindInhibitorTests.eventually(within: .seconds(90)) { log().components(separatedBy: found).count == 3 }
        #expect(log().components(separatedBy: found).count == 3, "\(log())")
        #expect(second.display == display)
    }

    @Test("R7: at login the user manager starts restored before the desktop is there: the session's apps wait (not saved, their archive kept) until the desktop exports its display to the manager, then come back on it; tmux needs no desktop", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func loginIntoTheDesktop() async throws {
        // This test's xterms would be running xterms for another test's
        // restore: held until every one of them is gone.
        let xtermLock = try await SharedTestLock.acquire("xterm")
        defer { xtermLock.release() }
        let installation = try await Self.installed()
        let (manager, prefix, server) = (installation.manager, installation.prefix, installation.tmux)
        defer { manager.stop() }
        defer { _ = try? server.run(["kill-server"]) }
        _ = try server.run(["new-session", "-d", "-s", "work"])
        let control = { (arguments: [String]) in
            try await CompletedCommand.run(prefix + "/bin/restored-ctl", arguments, environment: manager.clientEnvironment, in: URL(fileURLWithPath: manager.directory))
        }
        let share = manager.directory + "/share"
        try FileManager.default.createDirectory(atPath: share + "/applications", withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=XTerm\nExec=xterm\n".write(toFile: share + "/applications/xterm.desktop", atomically: false, encoding: .utf8)
        try await manager.systemctl(["set-environment", "XDG_DATA_DIRS=\(share)"])
        let xterms = { (display: String) in
            manager.processes.filter { (ProcProcess.commandLine(of: $0) ?? []).first?.hasSuffix("xterm") == true && ProcProcess.environment(of: $0)["DISPLAY"] == display }
        }

        // Yesterday: an xterm on the desktop, saved.
        var yesterday: VirtualDisplay? = try VirtualDisplay(log: manager.directory + "/xvfb-1.log")
        let oldDisplay = try #require(yesterday?.display)
        try await manager.systemctl(["set-environment", "DISPLAY=\(oldDisplay)"])
        var variables = manager.clientEnvironment
        variables["DISPLAY"] = oldDisplay
        variables["XDG_DATA_DIRS"] = share
        let xterm = try ChildProcess("/usr/bin/xterm", [], environment: variables, log: manager.directory + "/xterm.log")
        defer { xterm.stop() }
        #expect(try await manager.systemctl(["start", "restored.service"]).status == 0)
        let saved = try await control(["save", "org.restored.Session"])
        #expect(saved.status == 0, "\(saved.output)\(saved.error)")
        let store = ArchiveStore(directory: FilePath(manager.home + "/.local/state/restored"))
        let archive = try store.read(try AppID("org.restored.Session")).archive
        #expect(archive.objects.contains { $0.path.description.hasPrefix("xterm.desktop") }, "\(archive.objects.map(\.path.description))")

        // Logout: restored saves and stops, the apps and the display go, and
        // logind removes the session's runtime directory.
        #expect(try await manager.systemctl(["stop", "restored.service"]).status == 0)
        xterm.stop()
        _ = try server.run(["kill-server"])
        yesterday = nil
        try await manager.systemctl(["unset-environment", "DISPLAY"])
        try FileManager.default.removeItem(atPath: manager.runtimeDirectory + "/restored")

        // Login: the user manager starts restored at once, the desktop later.
        #expect(try await manager.systemctl(["start", "restored.service"]).status == 0)
        let log = { (try? String(contentsOfFile: installation.log, encoding: .utf8)) ?? "" }
        #expect(log().contains("org.restored.Session waits for the desktop"), "\(log())")
        // tmux needs no desktop: it is back at once.
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { (try? server.run(["list-sessions", "-F", "#{session_name}"])) == "work\n" }
        let waiting = try await control(["save", "org.restored.Session"])
        #expect(waiting.output.contains("kept") || waiting.error.contains("kept"), "\(waiting.output)\(waiting.error)")
        #expect(try store.read(try AppID("org.restored.Session")).archive.objects.contains { $0.path.description.hasPrefix("xterm.desktop") })
        let early = manager.processes.filter { (ProcProcess.commandLine(of: $0) ?? []).first?.hasSuffix("xterm") == true }
        #expect(early.isEmpty)

        // The desktop is there: its display runs and reaches the manager.
        let today = try VirtualDisplay(log: manager.directory + "/xvfb-2.log")
        try await manager.systemctl(["set-environment", "DISPLAY=\(today.display)"])
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { !xterms(today.display).isEmpty }
        #expect(log().contains("the desktop is there: \(today.display)"), "\(log())")
        let apps = try await control(["apps"])
        #expect(apps.output.contains("org.restored.Session"), "\(apps.output)")
        for pid in xterms(today.display) { kill(pid, SIGTERM) }
    }

    /// A desktop of the test's: an X server, the desktop's variables in the
    /// manager (as Debian's Xsession imports them), and, for `target`, a
    /// session target of its own that binds `graphical-session.target`
    /// (as GNOME's and KDE's do).
    final class TestDesktop {
        let display: VirtualDisplay
        let manager: UserManager
        let target: String?

        init(_ manager: UserManager, log: String, target: String? = nil) async throws {
            self.manager = manager
            self.target = target
            display = try VirtualDisplay(log: log)
            if let target {
                try "[Unit]\nBindsTo=graphical-session.target\nBefore=graphical-session.target\n"
                    .write(toFile: manager.unitDirectory + "/" + target, atomically: true, encoding: .utf8)
                try await manager.systemctl(["daemon-reload"])
            }
            try await manager.systemctl(["set-environment", "DISPLAY=\(display.display)"])
            if let target {
                let started = try await manager.systemctl(["start", target])
                try #require(started.status == 0, "\(started.error)")
            }
        }

        /// An xterm on it whose shell runs in `directory`.
        func xterm(in directory: String, share: String) throws -> ChildProcess {
            var variables = manager.clientEnvironment
            variables["DISPLAY"] = display.display
            variables["XDG_DATA_DIRS"] = share
            variables["SHELL"] = "/bin/sh"
            return try ChildProcess("/bin/sh", ["-c", "cd \"$0\" && exec xterm", directory], environment: variables, log: manager.directory + "/xterm-\(display.display).log")
        }

        /// Its end: the target stopped, the variables taken back.
        func end() async throws {
            if let target { try await manager.systemctl(["stop", target]) }
            try await manager.systemctl(["unset-environment", "DISPLAY"])
        }
    }

    /// The xterms of the manager's processes on `display`, with their shells' directories.
    ///
    /// The shell is the xterm's child that runs a shell: before it forks the
    /// shell, xterm forks and waits for libutempter's helper, which is in
    /// xterm's own directory and gone a moment later.
    static func xterms(of manager: UserManager, on display: String) -> [(pid: Int32, directory: String)] {
        manager.processes.filter { (ProcProcess.commandLine(of: $0) ?? []).first?.hasSuffix("xterm") == true && ProcProcess.environment(of: $0)["DISPLAY"] == display }
            .compactMap { pid in
                let isShell = { (child: Int32) in (ProcProcess.commandLine(of: child) ?? []).first.map { ForegroundProgram.shells.contains(ForegroundProgram.baseName($0)) } ?? false }
                guard let shell = ProcProcess.children(of: pid).first(where: isShell),
                      let directory = ProcProcess.directory(of: shell) else { return nil }
                return (pid, directory)
            }
    }

    /// A `desktop-files` directory with xterm's desktop entry, set as the manager's `XDG_DATA_DIRS`.
    static func desktopEntries(for manager: UserManager) async throws -> String {
        let share = manager.directory + "/share"
        try FileManager.default.createDirectory(atPath: share + "/applications", withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=XTerm\nExec=xterm\n".write(toFile: share + "/applications/xterm.desktop", atomically: false, encoding: .utf8)
        try await manager.systemctl(["set-environment", "XDG_DATA_DIRS=\(share)"])
        return share
    }

    @Test("R6, R7: two desktops one after the other in one login that lingers (each binding graphical-session.target, autosave every 2 s): the first's end is a session end for the session's apps, no autosave discards them between the desktops while logind says the user lingers, and the xterm of the first comes back on the second, in its directory, restored for the session", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func desktopsOfALingeringLogin() async throws {
        let xtermLock = try await SharedTestLock.acquire("xterm")
        defer { xtermLock.release() }
        let system = try await PrivateBus.start()
        defer { system.stop() }
        let logind = try await LogindMock.start(on: system)
        defer { logind.stop() }
        try await logind.setUser(getuid(), state: "active")
        let installation = try await Self.installed(arguments: ["--autosave-interval", "2"])
        let (manager, prefix) = (installation.manager, installation.prefix)
        defer { manager.stop() }
        // logind's mock is restored's system bus, not the manager's own.
        try await manager.systemctl(["set-environment", "DBUS_SYSTEM_BUS_ADDRESS=\(system.address)"])
        let log = { (try? String(contentsOfFile: installation.log, encoding: .utf8)) ?? "" }
        let share = try await Self.desktopEntries(for: manager)
        let store = ArchiveStore(directory: FilePath(manager.home + "/.local/state/restored"))
        let savedXterm = { () -> Bool in
            ((try? store.read(try AppID("org.restored.Session")).archive.objects) ?? []).contains { $0.path.description.hasPrefix("xterm.desktop") }
        }
        // The user lingers: the manager, and restored in it, run before any desktop.
        #expect(try await manager.systemctl(["start", "restored.service"]).status == 0)

        // The first desktop, and an xterm on it in a directory of the user's.
        var first: TestDesktop? = try await TestDesktop(manager, log: manager.directory + "/xvfb-1.log", target: "desktop-test.target")
        let project = manager.home + "/project"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        let xterm = try first!.xterm(in: project, share: share)
        defer { xterm.stop() }
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { log().contains("the desktop is there: \(first!.display.display)") }
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { savedXterm() }

        // The user logs out of the desktop and lingers: logind says so first.
        try await logind.setUser(getuid(), state: "lingering")
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { log().contains("the user lingers") }
        // Then the desktop's target stops, its display still up a moment:
        // the stop's signals (the target active, its stop job pending) are
        // no desktop starting again.
        #expect(try await manager.systemctl(["stop", "desktop-test.target"]).status == 0)
        try await Task.sleep(for: .seconds(2))
        #expect(log().components(separatedBy: "the desktop is there: \(first!.display.display)").count == 2, "\(log())")
        try await first!.end()
        xterm.stop()
        first = nil
        // Autosaves run meanwhile; none discards the session's apps.
        try await Task.sleep(for: .seconds(6))
        #expect(savedXterm(), "\(log())")
        #expect(!log().contains("org.restored.Session declined to save; its previous archive is discarded"), "\(log())")

        // The next desktop of the same login: the xterm comes back on it.
        try await logind.setUser(getuid(), state: "active")
        let second = try await TestDesktop(manager, log: manager.directory + "/xvfb-2.log", target: "desktop-test.target")
        try await LogindInhibitorTests.eventually(within: .seconds(40)) { !Self.xterms(of: manager, on: second.display.display).isEmpty }
        #expect(Self.xterms(of: manager, on: second.display.display).map(\.directory) == [project], "\(log())")
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { log().contains("org.restored.Session: restore at login: restored") }
        let status = try await CompletedCommand.run(prefix + "/bin/restored-ctl", ["status"], environment: manager.clientEnvironment, in: URL(fileURLWithPath: manager.directory))
        #expect(status.output.contains(second.display.display), "\(status.output)\(log())")
        #expect(status.output.contains("the user lingers"), "\(status.output)\(log())")
        for (pid, _) in Self.xterms(of: manager, on: second.display.display) { kill(pid, SIGTERM) }
        try await second.end()
    }

    @Test("R6, R7: i3 started from a console twice in one login (DISPLAY imported into the manager, no session target): i3's exit saves the session's apps, the X server's end ends the desktop, restored crashing between the desktops is a recovery, and the next i3's desktop gets the xterm back in its directory; the login's mark stays, so tmux is never started twice", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func consoleWindowManagerTwice() async throws {
        let xtermLock = try await SharedTestLock.acquire("xterm")
        defer { xtermLock.release() }
        let installation = try await Self.installed(arguments: ["--autosave-interval", "2"])
        let (manager, server) = (installation.manager, installation.tmux)
        defer { manager.stop() }
        defer { _ = try? server.run(["kill-server"]) }
        _ = try server.run(["new-session", "-d", "-s", "work"])
        let log = { (try? String(contentsOfFile: installation.log, encoding: .utf8)) ?? "" }
        let share = try await Self.desktopEntries(for: manager)
        #expect(try await manager.systemctl(["start", "restored.service"]).status == 0)

        /// `startx` with i3 as its client: the X server, i3 on it, DISPLAY imported.
        func startx(_ name: String) async throws -> (TestDesktop, ChildProcess) {
            let desktop = try await TestDesktop(manager, log: manager.directory + "/xvfb-\(name).log")
            try "ipc-socket \(manager.directory)/i3-\(name).sock\n".write(toFile: manager.directory + "/i3-\(name).config", atomically: true, encoding: .utf8)
            var variables = manager.clientEnvironment
            variables["DISPLAY"] = desktop.display.display
            variables.removeValue(forKey: "I3SOCK")
            let i3 = try ChildProcess("/usr/bin/i3", ["-c", manager.directory + "/i3-\(name).config"], environment: variables, log: manager.directory + "/i3-\(name).log")
            return (desktop, i3)
        }

        let i3: ChildProcess
        var first: TestDesktop?
        (first, i3) = try await startx("1")
        let project = manager.home + "/project"
        try FileManager.default.createDirectory(atPath: project, withIntermediateDirectories: true)
        let xterm = try first!.xterm(in: project, share: share)
        defer { xterm.stop() }
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { log().contains("following the window manager's IPC at \(manager.directory)/i3-1.sock") }
        let savedXterm = { () -> Bool in
            ((try? ArchiveStore(directory: FilePath(manager.home + "/.local/state/restored")).read(try AppID("org.restored.Session")).archive.objects) ?? [])
                .contains { $0.path.description.hasPrefix("xterm.desktop") }
        }
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { savedXterm() }

        // i3-msg exit; xinit then ends the X server, and the xterm with it.
        var variables = manager.clientEnvironment
        variables["DISPLAY"] = first!.display.display
        _ = try await CompletedCommand.run("/usr/bin/i3-msg", ["-s", manager.directory + "/i3-1.sock", "exit"], environment: variables, in: URL(fileURLWithPath: manager.directory))
        try await LogindInhibitorTests.eventually(within: .seconds(20)) { log().contains("the session ends (the window manager is exiting") }
        i3.stop()
        xterm.stop()
        first = nil
        try await LogindInhibitorTests.eventually(within: .seconds(20)) { log().contains("ended: its display") }
        try await Task.sleep(for: .seconds(5))
        // Between the desktops nothing discards the session's apps. (An autosave
        // before the first desktop's xterm ran may find no app and decline:
        // there is no archive yet then, and the log says so.)
        #expect(savedXterm(), "\(log())")
        #expect(!log().contains("org.restored.Session declined to save; its previous archive is discarded"), "\(log())")

        // restored crashes between the desktops; Restart=on-failure starts it
        // again inside the login: a recovery, which starts no second tmux server.
        let mainPID = { try await installation.mainPID() }
        let crashed = try await mainPID()
        kill(crashed, SIGKILL)
        try await LogindInhibitorTests.eventually(within: .seconds(20)) {
            let now = (try? await mainPID()) ?? 0
            return now != 0 && now != crashed && log().contains("restored started again during the login")
        }
        let tmuxServers = { manager.processes.filter { (ProcProcess.commandLine(of: $0) ?? []).first?.hasSuffix("tmux") == true }.count }
        let serversBefore = tmuxServers()

        // startx again.
        let (second, i3Again) = try await startx("2")
        defer { i3Again.stop() }
        try await LogindInhibitorTests.eventually(within: .seconds(40)) { !Self.xterms(of: manager, on: second.display.display).isEmpty }
        #expect(Self.xterms(of: manager, on: second.display.display).map(\.directory) == [project], "\(log())")
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { log().contains("org.restored.Session: restore at login: restored") }
        // tmux followed the login, not the desktops: one server, never restored again.
        #expect(!log().contains("org.restored.Tmux: restore at login: restored"), "\(log())")
        #expect(log().contains("org.restored.Tmux: restore at recovery: live"), "\(log())")
        #expect(tmuxServers() == serversBefore)
        for (pid, _) in Self.xterms(of: manager, on: second.display.display) { kill(pid, SIGTERM) }
    }
}
