import Foundation
import MessagePack
import NeovimControl
import ProcFiles
import RestoredTestSupport
import SystemPackage
import Testing
import TmuxControl
import TerminalPrograms
import WindowManagerIPC
import X11Client

/// The session plugin on a real headless sway with real foot terminals:
/// each window back on its workspace, floating where it floated, in its
/// shell's directory, running what it ran (less, and nvim with its splits,
/// files and cursors), through the daemon and a user manager played by
/// python3-dbusmock.
@Suite struct TilingSessionTests {
    typealias Environment = DaemonIntegrationTests.Environment
    static let appID = "org.restored.Session"

    /// One foot window of the test: its process and its shell's directory.
    struct Terminal {
        let process: ChildProcess
        let directory: String
    }

    /// The shell pids of foot `pid`, by their directory.
    static func shellDirectories(of pid: Int32) -> [String: Int32] {
        var found: [String: Int32] = [:]
        for child in ProcProcess.children(of: pid) {
            guard let name = ProcProcess.commandLine(of: child)?.first, ForegroundProgram.shells.contains(ForegroundProgram.baseName(name)),
                  let directory = ProcProcess.directory(of: child) else { continue }
            found[directory] = child
        }
        return found
    }

    /// foot's desktop entry (and `entries`, by file name: the lines after
    /// `Type=Application`) in `root/share`, the variables foot and the
    /// daemon run with on `sway`, and a user manager played by
    /// python3-dbusmock that starts the restored windows.
    static func footSession(
        root: String, sway: HeadlessSway, environment: Environment, entries: [String: String] = [:]
    ) async throws -> (variables: [String: String], manager: UserManagerMock) {
        try await footSession(root: root, desktop: sway.clientEnvironment, environment: environment, entries: entries)
    }

    /// The same on the desktop whose clients run with `desktop` (its
    /// display and runtime directory).
    static func footSession(
        root: String, desktop: [String: String], environment: Environment, entries: [String: String] = [:]
    ) async throws -> (variables: [String: String], manager: UserManagerMock) {
        try FileManager.default.createDirectory(atPath: root + "/share/applications", withIntermediateDirectories: true)
        for (name, lines) in ["foot.desktop": "Name=Foot\nExec=foot\nTerminal=false"].merging(entries, uniquingKeysWith: { _, new in new }) {
            try "[Desktop Entry]\nType=Application\n\(lines)\n".write(toFile: root + "/share/applications/" + name, atomically: false, encoding: .utf8)
        }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(desktop) { _, new in new }
        variables["XDG_DATA_DIRS"] = root + "/share"
        variables["XDG_DATA_HOME"] = root + "/data-home"
        variables["SHELL"] = "/bin/sh"
        variables["HOME"] = root
        variables.removeValue(forKey: "DISPLAY")
        let manager = try await UserManagerMock.start(on: environment.bus, environment: desktop.merging(["SHELL": "/bin/sh", "HOME": root]) { _, new in new })
        return (variables, manager)
    }

    @Test("sway and foot: four windows (one moved to workspace 3, one floating at its place, one running nvim with two files in splits, one running less) are saved through the daemon, killed, and come back each on its workspace, floating where it floated, in its directory, running what it ran, Neovim's state and all")
    func swayFootWindows() async throws {
        // The foots of another test would be running foots for this test's save and restore.
        let footLock = try await SharedTestLock.acquire("foot")
        defer { footLock.release() }
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path
        let sway = try await HeadlessSway(root: root)
        defer { sway.stop() }
        let (variables, manager) = try await Self.footSession(root: root, sway: sway, environment: environment)
        defer { manager.stop() }
        let names = ["shell", "floating", "editor", "pager"]
        for name in names { try FileManager.default.createDirectory(atPath: root + "/\(name) dir", withIntermediateDirectories: true) }
        let editorDirectory = root + "/editor dir"
        try (1 ... 200).map { "line \($0)" }.joined(separator: "\n").write(toFile: editorDirectory + "/a.txt", atomically: true, encoding: .utf8)
        try "one\ntwo\nthree\n".write(toFile: editorDirectory + "/b.txt", atomically: true, encoding: .utf8)
        try "page one\n".write(toFile: root + "/pager dir/notes.txt", atomically: true, encoding: .utf8)

        // Each window as its user made it: a shell in its directory, the
        // program run from it as a job (as typed at a prompt).
        func foot(_ name: String, running program: String? = nil) throws -> Terminal {
            let directory = root + "/\(name) dir"
            let command = program.map { "cd \"$0\" && set -m && \($0) ; exec /bin/sh" } ?? "cd \"$0\" && exec /bin/sh"
            let process = try ChildProcess("/usr/bin/foot", ["/bin/sh", "-c", command, directory], environment: variables, log: root + "/foot-\(name).log")
            return Terminal(process: process, directory: directory)
        }
        var terminals: [String: Terminal] = [:]
        defer { for terminal in terminals.values { terminal.process.stop() } }
        for (name, program) in [("shell", nil), ("floating", nil), ("editor", "nvim a.txt"), ("pager", "less notes.txt")] as [(String, String?)] {
            terminals[name] = try foot(name, running: program)
            try await LogindInhibitorTests.eventually { (try? WindowManagerConnection(socket: FilePath(sway.socket)).tree().windows.contains { $0.pid == terminals[name]!.process.pid }) == true }
        }
        let pid = { (name: String) in terminals[name]!.process.pid }
        try await sway.message(["[pid=\(pid("shell"))] move container to workspace 3"])
        for command in ["floating enable", "resize set 700 px 400 px", "move absolute position 100 px 80 px"] {
            try await sway.message(["[pid=\(pid("floating"))] \(command)"])
        }
        // Neovim: the user splits and moves.
        var editor: (pid: Int32, client: NeovimClient)?
        try await LogindInhibitorTests.eventually {
            guard let shell = Self.shellDirectories(of: pid("editor"))[editorDirectory], let program = ForegroundProgram.of(panePID: shell),
                  let socket = NeovimServer.sockets(ofProcess: program.pid).first, let client = try? NeovimClient(socket: socket, timeout: .seconds(10)) else { return false }
            editor = (program.pid, client)
            return true
        }
        // The layout settles (foot takes its new size) before the user splits:
        // the same size on four looks, 2 s (sway's retiling comes late on a loaded machine).
        var size: MessagePackValue = .nil
        var held = 0
        try await LogindInhibitorTests.eventually {
            let now = try editor!.client.call("nvim_eval", ["[&columns, &lines]"])
            defer { size = now }
            try await Task.sleep(for: .milliseconds(500))
            held = now == size ? held + 1 : 0
            return held >= 4
        }
        for command in ["vsplit \(editorDirectory)/b.txt", "call cursor(3, 2)", "wincmd l", "call cursor(120, 4)"] {
            _ = try editor!.client.call("nvim_command", [.string(command)])
        }
        let savedEditor = try NeovimSession.read(from: editor!.client)
        #expect(savedEditor.tabs.first?.layout.windows.count == 2)
        try await LogindInhibitorTests.eventually {
            Self.shellDirectories(of: pid("pager"))[root + "/pager dir"].flatMap { ForegroundProgram.of(panePID: $0) }?.arguments == ["less", "notes.txt"]
        }
        let place = { (windows: [WindowTree.Window], pid: Int32) in windows.first { $0.pid == pid } }
        _ = try await Self.holdFrame(of: pid("floating"), at: [100, 80, 700, 400], on: sway)
        let before = try WindowManagerConnection(socket: FilePath(sway.socket)).tree().windows
        let floatingBefore = try #require(place(before, pid("floating")))
        #expect(floatingBefore.floating && floatingBefore.frame == [100, 80, 700, 400] && place(before, pid("shell"))?.workspace == "3")

        let (daemon, admin, _) = try await environment.startAndSave(Self.appID, environment: variables)
        defer { admin.close() }
        for terminal in terminals.values { terminal.process.stop() }
        terminals = [:]
        try await LogindInhibitorTests.eventually { (try? WindowManagerConnection(socket: FilePath(sway.socket)).tree().windows.isEmpty) == true }

        #expect(try await admin.call("Restore", [.strings([Self.appID]), .boolean(true)]) == [.uint32(1)], "\(environment.log("restored.log"))")
        let units = try await manager.transientUnits()
        #expect(units.count == 4, "\(environment.wholeLog("restored.log"))")
        // Each new foot, known by its shell's directory.
        var restored: [String: Int32] = [:]
        try await LogindInhibitorTests.eventually {
            for unit in units {
                guard let footPID = manager.spawned[unit.name] else { continue }
                for (directory, _) in Self.shellDirectories(of: footPID) { restored[directory] = footPID }
            }
            return restored.count == 4
        }
        for name in names { #expect(restored[root + "/\(name) dir"] != nil, "\(name): \(restored)") }
        // Each window where it was.
        try await LogindInhibitorTests.eventually {
            let after = (try? WindowManagerConnection(socket: FilePath(sway.socket)).tree().windows) ?? []
            guard let shell = place(after, restored[root + "/shell dir"] ?? 0), let floating = place(after, restored[root + "/floating dir"] ?? 0) else { return false }
            return shell.workspace == "3" && floating.floating && floating.frame == floatingBefore.frame
        }
        let after = try WindowManagerConnection(socket: FilePath(sway.socket)).tree().windows
        #expect(place(after, restored[root + "/editor dir"] ?? 0)?.workspace == "1")
        #expect(place(after, restored[root + "/floating dir"] ?? 0)?.frame == floatingBefore.frame)
        // less runs again with its file; nvim with its whole state.
        try await LogindInhibitorTests.eventually {
            Self.shellDirectories(of: restored[root + "/pager dir"] ?? 0)[root + "/pager dir"].flatMap { ForegroundProgram.of(panePID: $0) }?.arguments == ["less", "notes.txt"]
        }
        var restoredSession: NeovimSession?
        try await LogindInhibitorTests.eventually {
            guard let shell = Self.shellDirectories(of: restored[editorDirectory] ?? 0)[editorDirectory], let program = ForegroundProgram.of(panePID: shell),
                  let socket = NeovimServer.sockets(ofProcess: program.pid).first, let client = try? NeovimClient(socket: socket, timeout: .seconds(10)),
                  let session = try? NeovimSession.read(from: client) else { return false }
            restoredSession = session
            return session == savedEditor
        }
        #expect(restoredSession == savedEditor, "\(environment.log("restored.log"))")
        // Nothing of the one-use scripts is left.
        #expect(try FileManager.default.contentsOfDirectory(atPath: sway.runtimeDirectory).filter { $0.hasPrefix("restored-terminal-program-") }.isEmpty)
        for unit in units { if let footPID = manager.spawned[unit.name] { kill(footPID, SIGKILL) } }
        #expect(await daemon.terminated() == 0)
    }
}

extension TilingSessionTests {
    /// `session` with every window's size zero.
    /// The next login of a terminals test: a second daemon (log
    /// `restored-2.log`), told to restore `appID` and checked to have made
    /// `count` launches through `manager`, and each relaunched terminal's
    /// process by its shell's directory once all `count` are there. The
    /// caller stops the daemon and kills the terminals (`units`).
    static func nextLogin(
        restoring appID: String, count: Int, environment: Environment, variables: [String: String], manager: UserManagerMock
    ) async throws -> (daemon: ChildProcess, units: [UserManagerMock.TransientUnit], terminals: [String: Int32]) {
        let daemon = try environment.startDaemon(log: "restored-2.log", arguments: ["--autosave-interval", "0"], environment: variables)
        _ = try await environment.waitForNotify("READY=1")
        let control = try await environment.admin()
        defer { control.close() }
        #expect(try await control.call("Restore", [.strings([appID]), .boolean(true)]) == [.uint32(1)], "\(environment.log("restored-2.log"))")
        let units = try await manager.transientUnits()
        #expect(units.count == count, "\(environment.wholeLog("restored-2.log"))")
        var terminals: [String: Int32] = [:]
        try await LogindInhibitorTests.eventually {
            for unit in units {
                guard let pid = manager.spawned[unit.name] else { continue }
                for (directory, _) in shellDirectories(of: pid) { terminals[directory] = pid }
            }
            return terminals.count == count
        }
        return (daemon, units, terminals)
    }

    /// Has the user resize and move the floating window of `pid` to `frame`
    /// (absolute) again until sway reports it there on ten looks, 2 s: a
    /// foot slow to start may still commit the size it first chose, and
    /// sway gives a floating window the size its client commits. The
    /// window as it holds.
    static func holdFrame(of pid: Int32, at frame: [Int], on sway: HeadlessSway) async throws -> WindowTree.Window? {
        var window: WindowTree.Window?
        var held = 0
        try await LogindInhibitorTests.eventually {
            window = (try? WindowManagerConnection(socket: FilePath(sway.socket)).tree().windows.first { $0.pid == pid }) ?? nil
            if window?.frame == frame {
                held += 1
            } else {
                held = 0
                _ = try await sway.message(["[pid=\(pid)] resize set \(frame[2]) px \(frame[3]) px"])
                _ = try await sway.message(["[pid=\(pid)] move absolute position \(frame[0]) px \(frame[1]) px"])
            }
            try await Task.sleep(for: .milliseconds(200))
            return held >= 10
        }
        return window
    }

    /// The Neovims running now that are not `terminal`'s (its child, or below it).
    static func neovims(besides terminal: Int32) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init).filter { pid in
            guard NeovimServer.isNeovim(pid: pid) else { return false }
            var current = pid
            for _ in 0 ..< 4 {
                guard let fields = ProcProcess.statFields(of: current), fields.count > 1, let parent = Int32(fields[1]), parent > 1 else { return true }
                if parent == terminal { return false }
                current = parent
            }
            return true
        }
    }

    /// Waits until no Neovim but `terminal`'s runs (other tests' end within minutes).
    static func waitUntilNoNeovimRuns(besides terminal: Int32) async throws {
        try await LogindInhibitorTests.eventually(within: .seconds(300)) { neovims(besides: terminal).isEmpty }
    }

    static func sizeless(_ session: NeovimSession) -> NeovimSession {
        func strip(_ layout: NeovimSession.Layout) -> NeovimSession.Layout {
            switch layout {
            case .window(var window):
                (window.width, window.height) = (0, 0)
                return .window(window)
            case .row(let children): return .row(children.map(strip))
            case .column(let children): return .column(children.map(strip))
            }
        }
        var copy = session
        for index in copy.tabs.indices { copy.tabs[index].layout = strip(copy.tabs[index].layout) }
        return copy
    }

    @Test("A terminal started with a program and no shell (foot nvim FILE, as a Terminal=true entry starts it) comes back running that program alone, Neovim's state and all, closing with it; the program is no left-out app of its own")
    func footRunningAProgramAlone() async throws {
        let footLock = try await SharedTestLock.acquire("foot")
        defer { footLock.release() }
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path
        let sway = try await HeadlessSway(root: root)
        defer { sway.stop() }
        let (variables, manager) = try await Self.footSession(
            root: root, sway: sway, environment: environment, entries: ["nvim.desktop": "Name=Neovim\nExec=nvim %F\nTerminal=true"]
        )
        defer { manager.stop() }
        let directory = root + "/notes dir"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try (1 ... 100).map { "note \($0)" }.joined(separator: "\n").write(toFile: directory + "/notes.txt", atomically: true, encoding: .utf8)

        // foot runs nvim itself: no shell between them.
        let foot = try ChildProcess("/bin/sh", ["-c", "cd \"$0\" && exec foot nvim notes.txt", directory], environment: variables, log: root + "/foot.log")
        defer { foot.stop() }
        var editor: NeovimClient?
        try await LogindInhibitorTests.eventually {
            guard let nvim = ProcProcess.children(of: foot.pid).first, NeovimServer.isNeovim(pid: nvim),
                  let socket = NeovimServer.sockets(ofProcess: nvim).first, let client = try? NeovimClient(socket: socket, timeout: .seconds(10)) else { return false }
            editor = client
            return true
        }
        _ = try editor!.call("nvim_command", [.string("call cursor(42, 3)")])
        let savedEditor = try NeovimSession.read(from: editor!)

        // The session plugin sees every Neovim of the user, and any of them
        // is this test's nvim.desktop: another test's (in a tmux pane, a
        // Neovim test's) running during the save is rightly a left-out app
        // of its own. So the save that counts is one made while no other
        // Neovim runs, before it and after it.
        try await Self.waitUntilNoNeovimRuns(besides: foot.pid)
        let (daemon, admin, _) = try await environment.startAndSave(Self.appID, environment: variables)
        defer { admin.close() }
        for _ in 0 ..< 5 where !Self.neovims(besides: foot.pid).isEmpty {
            try await Self.waitUntilNoNeovimRuns(besides: foot.pid)
            #expect(try await admin.call("Save", [.strings([Self.appID])]) == [.uint32(1)], "\(environment.log("restored.log"))")
        }
        let shown = try await CompletedCommand.run(BuildProducts.executable("restored-ctl"), ["show", Self.appID, "--state-dir", environment.state], environment: variables, in: URL(fileURLWithPath: root))
        #expect(!shown.output.contains("nvim.desktop"), "\(shown.output)")
        foot.stop()
        try await LogindInhibitorTests.eventually { (try? WindowManagerConnection(socket: FilePath(sway.socket)).tree().windows.isEmpty) == true }

        #expect(try await admin.call("Restore", [.strings([Self.appID]), .boolean(true)]) == [.uint32(1)], "\(environment.log("restored.log"))")
        let units = try await manager.transientUnits()
        #expect(units.count == 1, "\(environment.wholeLog("restored.log"))")
        // The new window's first process is the one-use script, running nvim alone, with its state.
        var restoredSession: NeovimSession?
        var script: Int32 = 0
        // How far the last look got, for the message when it never gets there.
        var seen = "no foot"
        try await LogindInhibitorTests.eventually {
            guard let footPID = units.first.flatMap({ manager.spawned[$0.name] }), let first = ProcProcess.children(of: footPID).first else { return false }
            seen = "foot's first process: \(ProcProcess.commandLine(of: first) ?? [])"
            guard let arguments = ProcProcess.commandLine(of: first), ProgramScript.isCommandScript(arguments),
                  let program = ForegroundProgram.of(panePID: first) else { return false }
            seen += ", its program \(program.arguments)"
            guard let socket = NeovimServer.sockets(ofProcess: program.pid).first,
                  let client = try? NeovimClient(socket: socket, timeout: .seconds(10)), let session = try? NeovimSession.read(from: client) else { return false }
            script = first
            restoredSession = session
            return Self.sizeless(session) == Self.sizeless(savedEditor)
        }
        // The window's size is the window manager's: files, tabs, splits and cursors are compared.
        #expect(restoredSession.map(Self.sizeless) == Self.sizeless(savedEditor), "\(seen); saved \(savedEditor), restored \(String(describing: restoredSession)); \(environment.wholeLog("restored.log"))")
        #expect(ProcProcess.directory(of: script) == directory)
        // Saved again, the window is still one that runs its program alone.
        #expect(try await admin.call("Save", [.strings([Self.appID])]) == [.uint32(1)])
        let again = try await CompletedCommand.run(BuildProducts.executable("restored-ctl"), ["dump", Self.appID, "--state-dir", environment.state], environment: variables, in: URL(fileURLWithPath: root))
        #expect(again.output.contains("alone"), "\(again.output)")
        for unit in units { if let footPID = manager.spawned[unit.name] { kill(footPID, SIGKILL) } }
        #expect(await daemon.terminated() == 0)
    }
}

extension TilingSessionTests {
    @Test("An output gone since the save (docked with two monitors, the next login undocked with one): the window comes back on the output there is, on its workspace, its floating frame moved inside it")
    func outputGoneSinceTheSave() async throws {
        let footLock = try await SharedTestLock.acquire("foot")
        defer { footLock.release() }
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path

        // Docked: a second monitor right of the first (sway's headless
        // backend cannot take an output away: the next login has one).
        let docked = try await HeadlessSway(root: root)
        // Stopped below, before the undocked login; here too if the test
        // fails on the way (stop is once only).
        defer { docked.stop() }
        var ipc = { try WindowManagerConnection(socket: FilePath(docked.socket)) }
        _ = try await docked.message(["create_output"])
        var outputs: [WindowManagerOutput] = []
        try await LogindInhibitorTests.eventually {
            outputs = (try? ipc().outputs().filter(\.active)) ?? []
            return outputs.count == 2
        }
        let second = try #require(outputs.first { $0.rect[0] != 0 })
        var (variables, manager) = try await Self.footSession(root: root, sway: docked, environment: environment)
        let directory = root + "/docked dir"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let foot = try ChildProcess("/usr/bin/foot", ["/bin/sh", "-c", "cd \"$0\" && exec /bin/sh", directory], environment: variables, log: root + "/foot.log")
        defer { foot.stop() }
        try await LogindInhibitorTests.eventually { (try? ipc().tree().windows.contains { $0.pid == foot.pid }) == true }
        // On the second monitor (its workspace), floating near its right edge.
        let x = second.rect[0] + second.rect[2] - 700
        for command in ["floating enable", "resize set 600 px 400 px", "move absolute position \(x) px 80 px"] {
            _ = try await docked.message(["[pid=\(foot.pid)] \(command)"])
        }
        let saved = try await Self.holdFrame(of: foot.pid, at: [x, 80, 600, 400], on: docked)
        #expect(saved?.output == second.name)
        let (daemon, admin, _) = try await environment.startAndSave(Self.appID, environment: variables)
        admin.close()
        // restored stops (it saves what runs), then the docked session goes.
        #expect(await daemon.terminated() == 0)
        foot.stop()
        manager.stop()
        docked.stop()

        // The next login, undocked: one monitor.
        try FileManager.default.createDirectory(atPath: root + "/undocked", withIntermediateDirectories: true)
        let undocked = try await HeadlessSway(root: root + "/undocked")
        defer { undocked.stop() }
        ipc = { try WindowManagerConnection(socket: FilePath(undocked.socket)) }
        let only = try #require(try ipc().outputs().first(where: \.active))
        (variables, manager) = try await Self.footSession(root: root, sway: undocked, environment: environment)
        defer { manager.stop() }
        let again = try environment.startDaemon(log: "restored-2.log", arguments: ["--autosave-interval", "0"], environment: variables)
        _ = try await environment.waitForNotify("READY=1")
        let control = try await environment.admin()
        defer { control.close() }
        #expect(try await control.call("Restore", [.strings([Self.appID]), .boolean(true)]) == [.uint32(1)], "\(environment.log("restored-2.log"))")
        let units = try await manager.transientUnits()
        let fitted = only.fitting(saved!.frame)
        var window: WindowTree.Window?
        try await LogindInhibitorTests.eventually {
            guard let footPID = units.first.flatMap({ manager.spawned[$0.name] }) else { return false }
            window = (try? ipc().tree().windows.first { $0.pid == footPID }) ?? nil
            return window?.output == only.name && window?.workspace == saved?.workspace && window?.floating == true && window?.frame == fitted
        }
        #expect(window?.output == only.name && window?.workspace == saved?.workspace && window?.frame == fitted, "saved \(String(describing: saved)), now \(String(describing: window)); \(environment.wholeLog("restored-2.log"))")
        for unit in units { if let footPID = manager.spawned[unit.name] { kill(footPID, SIGKILL) } }
        #expect(await again.terminated() == 0)
    }

    @Test("Where a window of a gone output goes: the saved output while active, else the primary, the focused, the first active; its frame moved and shrunk inside")
    func outputDestination() {
        let laptop = WindowManagerOutput(name: "eDP-1", active: true, rect: [0, 0, 1280, 800])
        let dock = WindowManagerOutput(name: "DP-2", active: false, rect: [1280, 0, 1920, 1080])
        let primary = WindowManagerOutput(name: "HDMI-A-1", active: true, primary: true, rect: [1280, 0, 1920, 1080])
        #expect(WindowManagerOutput.destination(for: "eDP-1", among: [laptop, dock]) == laptop)
        #expect(WindowManagerOutput.destination(for: "DP-2", among: [laptop, dock]) == laptop)
        #expect(WindowManagerOutput.destination(for: "DP-2", among: [laptop, dock, primary]) == primary)
        #expect(WindowManagerOutput.destination(for: nil, among: [dock]) == nil)
        #expect(laptop.fitting([2000, 300, 600, 400]) == [680, 300, 600, 400])
        #expect(laptop.fitting([-50, -20, 1500, 900]) == [0, 0, 1280, 800])
        #expect(laptop.fitting([10, 20, 300, 200]) == [10, 20, 300, 200])
    }
}

/// The same on a real i3 on Xvfb with xterm: i3's tree names each window's
/// X window, whose `_NET_WM_PID` says its process (EWMH requests are
/// ignored by i3: the IPC places them).
@Suite struct I3SessionTests {
    typealias Environment = DaemonIntegrationTests.Environment

    @Test("i3 and xterm: three windows (one moved to workspace 3, one floating at its place, one running less) are saved through the daemon, killed, and come back each on its workspace, floating where it floated, in its directory, running what it ran")
    func i3XtermWindows() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path
        // Another test's xterm would be a running xterm for this restore.
        let xtermLock = try await SharedTestLock.acquire("xterm")
        defer { xtermLock.release() }
        let display = try VirtualDisplay(log: root + "/xvfb.log")
        let socket = root + "/i3.sock"
        try "ipc-socket \(socket)\n".write(toFile: root + "/i3.config", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: root + "/share/applications", withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=XTerm\nExec=xterm\n".write(toFile: root + "/share/applications/xterm.desktop", atomically: false, encoding: .utf8)
        let names = ["shell", "floating", "pager"]
        for name in names { try FileManager.default.createDirectory(atPath: root + "/\(name) dir", withIntermediateDirectories: true) }
        try "page one\n".write(toFile: root + "/pager dir/notes.txt", atomically: true, encoding: .utf8)
        var variables = ProcessInfo.processInfo.environment
        variables["DISPLAY"] = display.display
        variables["I3SOCK"] = socket
        variables["XDG_DATA_DIRS"] = root + "/share"
        variables["XDG_DATA_HOME"] = root + "/data-home"
        variables["XDG_RUNTIME_DIR"] = root
        variables["SHELL"] = "/bin/sh"
        variables["HOME"] = root
        variables.removeValue(forKey: "WAYLAND_DISPLAY")
        variables.removeValue(forKey: "SWAYSOCK")
        let i3 = try ChildProcess("/usr/bin/i3", ["-c", root + "/i3.config"], environment: variables, log: root + "/i3.log")
        defer { i3.stop() }
        try await LogindInhibitorTests.eventually { (try? WindowManagerConnection(socket: FilePath(socket)).tree()) != nil }
        let manager = try await UserManagerMock.start(on: environment.bus, environment: ["DISPLAY": display.display, "SHELL": "/bin/sh", "HOME": root])
        defer { manager.stop() }
        let tree = { (try? WindowManagerConnection(socket: FilePath(socket)).tree().windows) ?? [] }
        let message = { (command: String) async throws in
            _ = try await CompletedCommand.run("/usr/bin/i3-msg", ["-s", socket, command], environment: variables, in: URL(fileURLWithPath: root))
        }

        var terminals: [String: ChildProcess] = [:]
        defer { for terminal in terminals.values { terminal.stop() } }
        for (name, program) in [("shell", nil), ("floating", nil), ("pager", "less notes.txt")] as [(String, String?)] {
            let command = program.map { "cd \"$0\" && set -m && \($0) ; exec /bin/sh" } ?? "cd \"$0\" && exec /bin/sh"
            terminals[name] = try ChildProcess("/usr/bin/xterm", ["-e", "/bin/sh", "-c", command, root + "/\(name) dir"], environment: variables, log: root + "/xterm-\(name).log")
            try await LogindInhibitorTests.eventually { tree().count == names.firstIndex(of: name)! + 1 }
        }
        let x11 = try X11Connection(display: try #require(X11Display(display.display)), authorityFile: nil)
        let windowOf = { (pid: Int32) -> WindowTree.Window? in
            tree().first { window in window.xWindow.flatMap { try? x11.property32("_NET_WM_PID", of: $0).first } == UInt32(pid) }
        }
        let pid = { (name: String) in terminals[name]!.pid }
        try await message("[id=\(try #require(windowOf(pid("shell"))?.xWindow))] move container to workspace 3")
        let floatingWindow = try #require(windowOf(pid("floating"))?.xWindow)
        for command in ["floating enable", "resize set 500 px 300 px", "move absolute position 60 px 40 px"] { try await message("[id=\(floatingWindow)] \(command)") }
        try await LogindInhibitorTests.eventually {
            TilingSessionTests.shellDirectories(of: pid("pager"))[root + "/pager dir"].flatMap { ForegroundProgram.of(panePID: $0) }?.arguments == ["less", "notes.txt"]
        }
        let floatingBefore = try #require(windowOf(pid("floating")))
        #expect(floatingBefore.floating && windowOf(pid("shell"))?.workspace == "3")

        let (daemon, admin, _) = try await environment.startAndSave(TilingSessionTests.appID, environment: variables)
        defer { admin.close() }
        for terminal in terminals.values { terminal.stop() }
        terminals = [:]
        try await LogindInhibitorTests.eventually { tree().isEmpty }

        #expect(try await admin.call("Restore", [.strings([TilingSessionTests.appID]), .boolean(true)]) == [.uint32(1)], "\(environment.log("restored.log"))")
        let units = try await manager.transientUnits()
        #expect(units.count == 3, "\(environment.wholeLog("restored.log"))")
        var restored: [String: Int32] = [:]
        try await LogindInhibitorTests.eventually {
            for unit in units {
                guard let xtermPID = manager.spawned[unit.name] else { continue }
                for (directory, _) in TilingSessionTests.shellDirectories(of: xtermPID) { restored[directory] = xtermPID }
            }
            return restored.count == 3
        }
        try await LogindInhibitorTests.eventually {
            guard let shell = windowOf(restored[root + "/shell dir"] ?? 0), let floating = windowOf(restored[root + "/floating dir"] ?? 0) else { return false }
            return shell.workspace == "3" && floating.floating && floating.frame == floatingBefore.frame
        }
        #expect(windowOf(restored[root + "/floating dir"] ?? 0)?.frame == floatingBefore.frame, "\(environment.log("restored.log"))")
        try await LogindInhibitorTests.eventually {
            TilingSessionTests.shellDirectories(of: restored[root + "/pager dir"] ?? 0)[root + "/pager dir"].flatMap { ForegroundProgram.of(panePID: $0) }?.arguments == ["less", "notes.txt"]
        }
        for unit in units { if let xtermPID = manager.spawned[unit.name] { kill(xtermPID, SIGKILL) } }
        #expect(await daemon.terminated() == 0)
    }
}

/// kitty with its remote control on (as its user turns it on in
/// `kitty.conf`): its own tabs and layouts come back whole.
@Suite struct KittySessionTests {
    typealias Environment = DaemonIntegrationTests.Environment

    /// What `kitty @ ls` says of a kitty, as a restore must bring it back:
    /// each OS window's tabs, each tab's layout and its windows' directories
    /// and programs (a shell at its prompt is "shell").
    static func layout(at address: String, environment: [String: String], in root: String) async throws -> [[String]] {
        let run = try await CompletedCommand.run("/usr/bin/kitty", ["@", "--to", address, "ls"], environment: environment, in: URL(fileURLWithPath: root))
        guard run.status == 0, let windows = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]] else { return [] }
        return windows.map { window in
            ((window["tabs"] as? [[String: Any]]) ?? []).map { tab in
                let panes = ((tab["windows"] as? [[String: Any]]) ?? []).map { pane -> String in
                    let processes = (pane["foreground_processes"] as? [[String: Any]]) ?? []
                    let command = (processes.first?["cmdline"] as? [String]) ?? []
                    let program = ForegroundProgram.shells.contains(ForegroundProgram.baseName(command.first ?? "")) ? "shell" : command.joined(separator: " ")
                    return "\(pane["cwd"] as? String ?? "?"): \(program)"
                }
                return "\(tab["layout"] as? String ?? "?") [\(panes.joined(separator: ", "))]"
            }
        }
    }

    @Test("kitty with remote control on headless sway: two tabs (one in the tall layout with a shell and less, one with a shell) come back as one kitty with the same tabs, layouts, directories and programs")
    func kittyTabsAndLayouts() async throws {
        // Another test's program named kitty would be a running kitty for this save.
        let kittyLock = try await SharedTestLock.acquire("kitty")
        defer { kittyLock.release() }
        let environment = try await Environment.make()
        try environment.addPlugin("SessionPlugin")
        let root = environment.bus.directory.path
        let sway = try await HeadlessSway(root: root)
        defer { sway.stop() }
        for directory in [root + "/share/applications", root + "/kitty-config", root + "/one", root + "/two", root + "/three"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        try "[Desktop Entry]\nType=Application\nName=kitty\nExec=kitty\n".write(toFile: root + "/share/applications/kitty.desktop", atomically: false, encoding: .utf8)
        try "allow_remote_control yes\nlisten_on unix:\(root)/kitty-rc\n".write(toFile: root + "/kitty-config/kitty.conf", atomically: false, encoding: .utf8)
        try "page one\n".write(toFile: root + "/two/notes.txt", atomically: true, encoding: .utf8)
        let kittyVariables = sway.clientEnvironment.merging(["SHELL": "/bin/sh", "HOME": root, "KITTY_CONFIG_DIRECTORY": root + "/kitty-config"]) { _, new in new }
        var variables = ProcessInfo.processInfo.environment
        variables.merge(kittyVariables) { _, new in new }
        variables["XDG_DATA_DIRS"] = root + "/share"
        variables["XDG_DATA_HOME"] = root + "/data-home"
        variables.removeValue(forKey: "DISPLAY")
        let manager = try await UserManagerMock.start(on: environment.bus, environment: kittyVariables)
        defer { manager.stop() }
        let addresses = { Set(((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter { $0.hasPrefix("kitty-rc-") }.map { "unix:\(root)/\($0)" }) }

        var kitty: ChildProcess? = try ChildProcess("/usr/bin/kitty", ["--directory", root + "/one"], environment: variables, log: root + "/kitty.log")
        defer { kitty?.stop() }
        var address = ""
        try await LogindInhibitorTests.eventually { address = addresses().first ?? ""; return !address.isEmpty }
        for arguments in [
            ["launch", "--type=window", "--cwd=\(root)/two", "/bin/sh", "-c", "set -m; less notes.txt; exec /bin/sh"],
            ["goto-layout", "tall"],
            ["launch", "--type=tab", "--cwd=\(root)/three"],
        ] {
            let run = try await CompletedCommand.run("/usr/bin/kitty", ["@", "--to", address] + arguments, environment: variables, in: URL(fileURLWithPath: root))
            #expect(run.status == 0, "\(arguments): \(run.error)")
        }
        var before: [[String]] = []
        try await LogindInhibitorTests.eventually {
            before = try await Self.layout(at: address, environment: variables, in: root)
            return before.first?.first?.contains("less notes.txt") == true
        }
        #expect(before == [["tall [\(root)/one: shell, \(root)/two: less notes.txt]", "\(before[0][1].split(separator: " ")[0]) [\(root)/three: shell]"]], "\(before)")

        let (daemon, admin, _) = try await environment.startAndSave(TilingSessionTests.appID, environment: variables)
        defer { admin.close() }
        kitty?.stop()
        kitty = nil
        try? FileManager.default.removeItem(atPath: String(address.dropFirst(5)))
        try await LogindInhibitorTests.eventually { (try? WindowManagerConnection(socket: FilePath(sway.socket)).tree().windows.isEmpty) == true }

        #expect(try await admin.call("Restore", [.strings([TilingSessionTests.appID]), .boolean(true)]) == [.uint32(1)], "\(environment.log("restored.log"))")
        let units = try await manager.transientUnits()
        #expect(units.count == 1, "\(environment.wholeLog("restored.log"))")
        #expect(units.first?.command.suffix(2).first == "--session")
        var after: [[String]] = []
        try await LogindInhibitorTests.eventually {
            guard let again = addresses().first else { return false }
            after = try await Self.layout(at: again, environment: variables, in: root)
            return after == before
        }
        #expect(after == before, "\(environment.log("restored.log"))")
        // The session file and the script are gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: sway.runtimeDirectory).filter { $0.hasPrefix("restored-") }.isEmpty)
        for unit in units { if let pid = manager.spawned[unit.name] { kill(pid, SIGKILL) } }
        #expect(await daemon.terminated() == 0)
    }
}
