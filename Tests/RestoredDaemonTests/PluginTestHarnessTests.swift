import Foundation
import RestoredTestSupport
import SystemPackage
import Testing
import TmuxControl
import ProcFiles

/// `restored-plugin-test`, the plugin authors' harness, run as they run it:
/// on the built-in tmux plugin against a real tmux server of the test's
/// (private `TMUX_TMPDIR`), with the real restored and restored-ctl of the
/// build, plainly and under the unit's sandbox in a real user manager.
@Suite struct PluginTestHarnessTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let harness = BuildProducts.executable("restored-plugin-test")
    static let tmuxPlugin = BuildProducts.plugin("TmuxPlugin")

    /// A tmux server of the test: its `TMUX_TMPDIR` in `directory`, a
    /// session `work` of two windows, one in `directory/project a` and one
    /// in `directory/project b`; panes run `/bin/sh` with `directory` as
    /// `HOME`. Returns the runner and the environment every program of the
    /// test gets (`base` with the tmux variables).
    static func tmuxServer(in directory: String, base: [String: String]) throws -> (tmux: TmuxRunner, environment: [String: String]) {
        let tmuxDirectory = directory + "/tmux"
        try FileManager.default.createDirectory(atPath: tmuxDirectory + "/tmux-\(getuid())", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for project in ["project a", "project b"] {
            try FileManager.default.createDirectory(atPath: directory + "/" + project, withIntermediateDirectories: true)
        }
        var environment = base
        environment.merge(["TMUX_TMPDIR": tmuxDirectory, "SHELL": "/bin/sh"]) { _, new in new }
        let tmux = try #require(TmuxRunner(socket: FilePath(tmuxDirectory + "/tmux-\(getuid())/default"), environment: environment))
        _ = try tmux.run(commands: [
            ["new-session", "-d", "-s", "work", "-c", directory + "/project a", "-x", "100", "-y", "30"],
            ["new-window", "-d", "-t", "=work:1", "-c", directory + "/project b"],
        ])
        return (tmux, environment)
    }

    /// The windows of `work`: each index and its pane's directory.
    static func windows(of tmux: TmuxRunner) throws -> String {
        try tmux.run(["list-windows", "-t", "=work", "-F", "#{window_index} #{pane_current_path}"])
    }

    /// Expects `tmux`'s windows to be `expected` within 30 s: each pane's
    /// path is read from its shell, which reaches its directory an instant
    /// after the restore made the window.
    static func expectWindows(of tmux: TmuxRunner, toBe expected: String) async throws {
        var last = ""
        for _ in 0..<300 {
            last = try windows(of: tmux)
            if last == expected { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(last == expected)
    }

    /// The run's directory, as the harness names it on its first lines.
    static func runDirectory(in output: String) -> String? {
        output.split(separator: "\n").first { $0.contains("run directory: ") }.flatMap { line in
            line.components(separatedBy: "run directory: ").last?.components(separatedBy: " (").first
        }
    }

    /// The processes whose command line names `path` (a run's restored and bus).
    static func processes(naming path: String) -> [Int32] {
        ProcProcess.all().filter { pid in (ProcProcess.commandLine(of: pid) ?? []).contains { $0.contains(path) } }
    }

    /// Runs the harness with `arguments` and `environment`.
    static func harness(_ arguments: [String], environment: [String: String], in directory: String) async throws -> CompletedCommand {
        try await CompletedCommand.run(harness, arguments, environment: environment, in: URL(fileURLWithPath: directory))
    }

    @Test("The tmux plugin through save, the server's end and a login restore, without the sandbox: exit 0, the saved objects named, the server back with its windows in their directories, and nothing of the run left (restored, its bus, its directory, its login mark)")
    func plainRun() async throws {
        let directory = try TemporaryTestDirectory()
        // No session bus of the caller's: no user manager; the runtime
        // directory (restored's login mark, the plugin's one-use files) is the test's.
        var base = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DBUS_") }
        base["XDG_RUNTIME_DIR"] = directory.path + "/runtime"
        base["HOME"] = directory.path
        try FileManager.default.createDirectory(atPath: directory.path + "/runtime", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let (tmux, environment) = try Self.tmuxServer(in: directory.path, base: base)
        defer { _ = try? tmux.run(["kill-server"]) }
        let before = try Self.windows(of: tmux)
        #expect(before == "0 \(directory.path)/project a\n1 \(directory.path)/project b\n")

        let socket = tmux.socket.string
        let run = try await Self.harness(
            [Self.tmuxPlugin, "--end", "tmux -S \(socket) kill-server", "--check", "tmux -S \(socket) has-session -t =work", "--walk-timeout", "20"],
            environment: environment, in: directory.path
        )
        #expect(run.status == 0, "\(run.output)\(run.error)")
        #expect(run.error.isEmpty, "\(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("save: saved (request), generation 1, 6 objects") }, "\(run.output)")
        for path in ["default", "default/work", "default/work/0", "default/work/0/0", "default/work/1", "default/work/1/0"] {
            #expect(lines.contains { $0.hasPrefix("    \(path) (TmuxPlugin.") }, "\(path): \(run.output)")
        }
        #expect(lines.contains("    its save at the stop wrote generation 2"), "\(run.output)")
        #expect(lines.contains { $0.hasPrefix("restore: restored (login, at restored's start), 6 of 6 objects restored") }, "\(run.output)")
        #expect(lines.last == "ok: org.restored.Tmux was saved, ended and restored")

        // The server was killed by --end and is back, as it was.
        try await Self.expectWindows(of: tmux, toBe: before)
        // Nothing of the run is left.
        let runDirectory = try #require(Self.runDirectory(in: run.output))
        #expect(!FileManager.default.fileExists(atPath: runDirectory))
        #expect(Self.processes(naming: runDirectory).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/runtime/restored"))
    }

    @Test("Under --sandbox in a real user manager, with the repository's unit: exit 0, the unit's hardening printed as applied, and the tmux server the restore brings back runs in an app-restored-* unit of the manager, outside restored's seccomp filter", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func sandboxedRun() async throws {
        let manager = try await UserManager()
        defer { manager.stop() }
        let (tmux, environment) = try Self.tmuxServer(in: manager.directory, base: manager.clientEnvironment)
        defer { _ = try? tmux.run(["kill-server"]) }
        let before = try Self.windows(of: tmux)

        let socket = tmux.socket.string
        let run = try await Self.harness(
            [Self.tmuxPlugin, "--sandbox", "--unit-file", Self.repository + "/systemd/restored.service",
             "--end", "tmux -S \(socket) kill-server", "--check", "tmux -S \(socket) has-session -t =work", "--walk-timeout", "20"],
            environment: environment, in: manager.directory
        )
        #expect(run.status == 0, "\(run.output)\(run.error)")
        let lines = run.output.split(separator: "\n").map(String.init)
        for property in ["NoNewPrivileges=yes", "MemoryDenyWriteExecute=yes", "SystemCallFilter=@system-service", "SystemCallFilter=~@privileged", "KillMode=mixed"] {
            #expect(lines.contains("    \(property)"), "\(property): \(run.output)")
        }
        #expect(lines.contains { $0.hasPrefix("restore: restored (login, at restored's start)") }, "\(run.output)")
        #expect(!run.output.contains("warning:"), "\(run.output)")

        // The server is back, started by the user manager, with no filter.
        // A pane's path is its shell's directory: tmux reads it once the
        // pane's fork has made its terminal the shell's, an instant after
        // the window is made, and under CI's load that instant shows.
        try await Self.expectWindows(of: tmux, toBe: before)
        let pid = try #require(Int32(try tmux.run(["display-message", "-p", "-t", "=work:", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)))
        let cgroup = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
        #expect(cgroup.contains("/app.slice/app-restored-"), "\(cgroup)")
        #expect(ProcProcess.status("Seccomp", of: pid) == "0")
        #expect(lines.contains { $0.hasPrefix("    pid \(pid) (") && $0.contains("outside restored's sandbox (Seccomp 0, NoNewPrivs 0)") }, "\(run.output)")
        // restored's unit is gone.
        let units = try await manager.systemctl(["list-units", "--all", "--no-legend", "restored-plugin-test-*"])
        #expect(units.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(units.output)")
    }

    @Test("A file that is not a plugin fails the run at start with one line on standard error naming restored's refusal, and exit status 1")
    func notAPlugin() async throws {
        let directory = try TemporaryTestDirectory()
        let file = directory.path + "/libNotAPlugin.so"
        try "this is text, not a shared object\n".write(toFile: file, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DBUS_") }
        environment["XDG_RUNTIME_DIR"] = directory.path
        let run = try await Self.harness([file], environment: environment, in: directory.path)
        #expect(run.status == 1, "\(run.output)\(run.error)")
        let errors = run.error.split(separator: "\n")
        #expect(errors.count == 1, "\(run.error)")
        #expect(errors.first?.hasPrefix("restored-plugin-test: failed at start: restored did not load the plugin: refused plugin ") == true, "\(run.error)")
        #expect(errors.first?.contains("libNotAPlugin.so: it could not be loaded") == true, "\(run.error)")
        let runDirectory = try #require(Self.runDirectory(in: run.output))
        #expect(!FileManager.default.fileExists(atPath: runDirectory))
        #expect(Self.processes(naming: runDirectory).isEmpty)
    }

    @Test("--sandbox without a user manager fails at once, before anything starts, with one line that says what is missing")
    func sandboxWithoutUserManager() async throws {
        let directory = try TemporaryTestDirectory()
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DBUS_") }
        environment["XDG_RUNTIME_DIR"] = directory.path
        let run = try await Self.harness([Self.tmuxPlugin, "--sandbox"], environment: environment, in: directory.path)
        #expect(run.status == 1, "\(run.output)\(run.error)")
        #expect(run.output.isEmpty, "\(run.output)")
        #expect(run.error == "restored-plugin-test: failed at setup: --sandbox needs your systemd user manager, and there is no session bus to ask (DBUS_SESSION_BUS_ADDRESS unset and no $XDG_RUNTIME_DIR/bus); run this inside your login session, or leave out --sandbox\n")
    }

    /// The harness's arguments for the guide's mpv example: two players of
    /// `--start`, on sockets in `directory`, paused in `files`, each quiet.
    static func mpvRun(files: [String], sockets: [String], extra: [String]) -> [String] {
        let quiet = ExampleMpvPluginTests.quiet.joined(separator: " ")
        var arguments = [BuildProducts.plugin("ExampleMpvPlugin"), "--app-id", ExampleMpvPluginTests.appID, "--option", "arguments=\(quiet)", "--walk-timeout", "20"]
        for (file, socket) in zip(files, sockets) {
            arguments += ["--start", "mpv \(quiet) --input-ipc-server=\(socket) --pause=yes -- '\(file)'"]
        }
        return arguments + extra
    }

    /// Ends the players listening on `sockets` (what a run leaves running: its restored apps).
    static func endPlayers(on sockets: [String]) {
        for socket in sockets {
            if let pid = ExampleMpvPluginTests.property("pid", of: socket, within: .seconds(1)) as? Int { kill(Int32(pid), SIGKILL) }
        }
    }

    @Test("The guide's mpv example through the harness, without the sandbox: two players of --start saved (three objects), ended, and back on their sockets with their files")
    func mpvPlainRun() async throws {
        // The plugin saves every mpv of the user: no other test's may run meanwhile.
        let mpvLock = try await SharedTestLock.acquire("mpv")
        defer { mpvLock.release() }
        let directory = try TemporaryTestDirectory()
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("DBUS_") }
        environment["XDG_RUNTIME_DIR"] = directory.path + "/runtime"
        try FileManager.default.createDirectory(atPath: directory.path + "/runtime", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let files = [directory.path + "/one song.wav", directory.path + "/two.wav"]
        for file in files { try ExampleMpvPluginTests.silence(file, seconds: 60) }
        let sockets = [directory.path + "/one.sock", directory.path + "/two.sock"]
        defer { Self.endPlayers(on: sockets) }
        let run = try await Self.harness(Self.mpvRun(files: files, sockets: sockets, extra: []), environment: environment, in: directory.path)
        #expect(run.status == 0, "\(run.output)\(run.error)")
        #expect(run.output.contains("generation 1, 3 objects"), "\(run.output)")
        #expect(run.output.contains("3 of 3 objects restored"), "\(run.output)")
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { sockets.allSatisfy { ExampleMpvPluginTests.property("time-pos", of: $0) != nil } }
        #expect(sockets.map { ExampleMpvPluginTests.property("path", of: $0) as? String } == files)
    }

    @Test("The guide's mpv example through the harness under --sandbox in a real user manager: the players restored run in app-restored-io.mpv.Mpv units, outside restored's sandbox, and the report says so", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func mpvSandboxedRun() async throws {
        // The plugin saves every mpv of the user: no other test's may run meanwhile.
        let mpvLock = try await SharedTestLock.acquire("mpv")
        defer { mpvLock.release() }
        let manager = try await UserManager()
        defer { manager.stop() }
        let files = [manager.directory + "/one $HOME song.wav", manager.directory + "/two.wav"]
        for file in files { try ExampleMpvPluginTests.silence(file, seconds: 60) }
        let sockets = [manager.directory + "/one.sock", manager.directory + "/two.sock"]
        defer { Self.endPlayers(on: sockets) }
        let run = try await Self.harness(
            Self.mpvRun(files: files, sockets: sockets, extra: ["--sandbox", "--unit-file", Self.repository + "/systemd/restored.service"]),
            environment: manager.clientEnvironment, in: manager.directory
        )
        #expect(run.status == 0, "\(run.output)\(run.error)")
        #expect(!run.output.contains("warning:"), "\(run.output)")
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { sockets.allSatisfy { ExampleMpvPluginTests.property("time-pos", of: $0) != nil } }
        #expect(sockets.map { ExampleMpvPluginTests.property("path", of: $0) as? String } == files)
        for socket in sockets {
            let pid = try #require((ExampleMpvPluginTests.property("pid", of: socket) as? Int).map(Int32.init))
            #expect(ProcProcess.status("Seccomp", of: pid) == "0")
            let cgroup = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
            #expect(cgroup.contains("/app.slice/app-restored-io.mpv.Mpv@"), "\(cgroup)")
            #expect(run.output.contains("pid \(pid) ("), "\(run.output)")
        }
    }
}
