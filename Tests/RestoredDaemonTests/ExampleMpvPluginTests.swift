import Foundation
import Glibc
import PluginToolkit
import RestoredArchive
import RestoredTestSupport
import SystemPackage
import SystemSupport
import Testing
import ProcFiles

/// The SDK guide's example plugin, for mpv, with real mpv players through
/// the real daemon: several instances, each by its IPC socket, saved,
/// killed and started again where they were; one that does not answer at
/// a save is carried over from the save before (R6 per object).
@Suite(.serialized) struct ExampleMpvPluginTests {
    static let appID = "io.mpv.Mpv"
    /// What the players run with in a test: no configuration of the
    /// machine's, no sound card, no window.
    static let quiet = ["--no-config", "--ao=null", "--no-video", "--msg-level=all=warn"]

    /// A WAV file of `seconds` of silence (8 kHz, mono, 8 bit).
    static func silence(_ path: String, seconds: Int) throws {
        let samples = 8000 * seconds
        var header = Data("RIFF".utf8)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
        append(UInt32(36 + samples))
        header.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16)); append(UInt16(1)); append(UInt16(1)); append(UInt32(8000)); append(UInt32(8000)); append(UInt16(1)); append(UInt16(8))
        header.append(contentsOf: Array("data".utf8))
        append(UInt32(samples))
        try (header + Data(repeating: 0x80, count: samples)).write(to: URL(fileURLWithPath: path))
    }

    /// A player's answer for `property` over its socket; nil when it does not answer.
    static func property(_ name: String, of socket: String, within limit: Duration = .seconds(2)) -> Any? {
        guard let client = try? SocketRequestClient(connectingTo: FilePath(socket)) else { return nil }
        let deadline = ContinuousClock.now + limit
        guard let line = try? client.request(#"{"command":["get_property","\#(name)"],"request_id":7}"#, before: deadline, answeredBy: { $0.contains(#""request_id":7"#) }),
              let answer = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { return nil }
        return answer["data"]
    }

    /// Sends a command to a player and waits for its answer.
    static func command(_ json: String, to socket: String) throws {
        let client = try SocketRequestClient(connectingTo: FilePath(socket))
        _ = try client.request(#"{"command":\#(json),"request_id":9}"#, before: .now + .seconds(5)) { $0.contains(#""request_id":9"#) }
    }

    /// Starts a player on `socket` playing `file`, paused or not, and waits until it answers.
    static func player(_ file: String, socket: String, paused: Bool, in directory: String, extra: [String] = []) async throws -> ChildProcess {
        let mpv = try #require(ExecutableSearchPath.executable(named: "mpv", in: ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"), "mpv is not installed (scripts/setup installs it)")
        let process = try ChildProcess(mpv, quiet + extra + ["--input-ipc-server=\(socket)", "--pause=\(paused ? "yes" : "no")", "--", file], log: directory + "/mpv-\(FilePath(socket).lastComponent!.stem).log")
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { property("time-pos", of: socket) as? Double != nil }
        return process
    }

    /// Seeks a player to `seconds` and waits until it is there.
    static func seek(_ socket: String, to seconds: Double) async throws {
        try command(#"["seek",\#(seconds),"absolute","exact"]"#, to: socket)
        try await LogindInhibitorTests.eventually(within: .seconds(10)) { abs((property("time-pos", of: socket) as? Double ?? -100) - seconds) < 0.3 }
    }

    @Test("Three mpv players come back through the daemon with their files (one named with $, % and spaces), positions, pause, volume and speed; one stopped (SIGSTOP) at the second save is carried over from the first, said in restored-ctl show; a second restore starts nothing", .timeLimit(.minutes(3)))
    func playersComeBack() async throws {
        // The plugin saves every mpv of the user: no other test's may run meanwhile.
        let mpvLock = try await SharedTestLock.acquire("mpv")
        defer { mpvLock.release() }
        let environment = try await DaemonIntegrationTests.Environment.make()
        try environment.addPlugin("ExampleMpvPlugin")
        let manager = try await UserManagerMock.start(on: environment.bus)
        defer { manager.stop() }
        let root = environment.bus.directory.path
        let media = root + "/media dir"
        try FileManager.default.createDirectory(atPath: media, withIntermediateDirectories: true)
        let files = [media + "/a.wav", media + "/b $HOME %h 50%.wav", media + "/c.wav"]
        for file in files { try Self.silence(file, seconds: 90) }
        let sockets = ["a", "b", "c"].map { root + "/\($0).sock" }
        var players = [
            try await Self.player(files[0], socket: sockets[0], paused: true, in: root),
            try await Self.player(files[1], socket: sockets[1], paused: true, in: root, extra: ["--volume=70"]),
            try await Self.player(files[2], socket: sockets[2], paused: false, in: root, extra: ["--volume=40", "--speed=1.5"]),
        ]
        defer { for player in players { kill(player.pid, SIGCONT); kill(player.pid, SIGKILL) } }
        try await Self.seek(sockets[0], to: 12.5)
        try await Self.seek(sockets[1], to: 30)
        // A fourth player answers and plays nothing: there is nothing of it to come back.
        let mpv = try #require(ExecutableSearchPath.executable(named: "mpv", in: ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"))
        let idleSocket = root + "/idle.sock"
        let idle = try ChildProcess(mpv, Self.quiet + ["--idle=yes", "--input-ipc-server=\(idleSocket)"], log: root + "/mpv-idle.log")
        defer { kill(idle.pid, SIGKILL) }
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { Self.property("idle-active", of: idleSocket) as? Bool == true }

        try environment.writeOptions("[\(Self.appID)]\narguments = \(Self.quiet.joined(separator: " "))\n")
        let (daemon, admin, first) = try await environment.startAndSave(Self.appID, environment: [:])
        defer { admin.close() }
        let store = ArchiveStore(directory: FilePath(environment.state))
        let firstArchive = try store.read(try AppID(Self.appID)).archive
        #expect(firstArchive.objects.count == 4, "\(environment.log("restored.log"))")
        #expect(!firstArchive.objects.contains { $0.path.description.contains("idle.sock") })
        #expect(firstArchive.carriedObjects.isEmpty)

        // B stops answering (stopped, as a debugger or a hung decoder
        // would leave it); A moves on.
        kill(players[1].pid, SIGSTOP)
        try await Self.seek(sockets[0], to: 20)
        #expect(try await admin.call("Save", [.strings([Self.appID])]) == [.uint32(1)])
        let second = try store.read(try AppID(Self.appID)).archive
        #expect(second.generation == first + 1)
        #expect(second.objects.count == 4)
        let carried = try #require(second.carriedObjects.first)
        #expect(second.carriedObjects.count == 1)
        #expect(carried.path.description.contains("b.sock"))
        #expect(carried.since == firstArchive.timestamp)
        #expect(environment.wholeLog("restored.log").contains("did not answer"))
        let show = try await CompletedCommand.run(
            BuildProducts.executable("restored-ctl"), ["show", Self.appID, "--state-dir", environment.state],
            environment: ["DBUS_SESSION_BUS_ADDRESS": environment.bus.address], in: URL(fileURLWithPath: root)
        )
        #expect(show.output.contains("carried over: the plugin could not say 1 object(s) at this save"), "\(show.output)\(show.error)")

        // Every player goes (a logout), the stopped one too.
        let position = try #require(Self.property("time-pos", of: sockets[2]) as? Double)
        for player in players {
            kill(player.pid, SIGCONT)
            kill(player.pid, SIGKILL)
            _ = await player.terminated()
        }
        players = []
        #expect(try await admin.call("Restore", [.strings([Self.appID]), .boolean(true)]) == [.uint32(1)], "\(environment.log("restored.log"))")

        // Each listens on its socket again, as it was, once it has opened its file.
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { sockets.allSatisfy { Self.property("time-pos", of: $0) as? Double != nil } }
        #expect(Self.property("path", of: sockets[0]) as? String == files[0])
        #expect(abs((Self.property("time-pos", of: sockets[0]) as? Double ?? 0) - 20) < 0.5)
        #expect(Self.property("pause", of: sockets[0]) as? Bool == true)
        #expect(Self.property("path", of: sockets[1]) as? String == files[1])
        #expect(abs((Self.property("time-pos", of: sockets[1]) as? Double ?? 0) - 30) < 0.5)
        #expect(Self.property("pause", of: sockets[1]) as? Bool == true)
        #expect(Self.property("volume", of: sockets[1]) as? Double == 70)
        #expect(Self.property("path", of: sockets[2]) as? String == files[2])
        #expect((Self.property("time-pos", of: sockets[2]) as? Double ?? 0) >= position - 0.5)
        #expect(Self.property("pause", of: sockets[2]) as? Bool == false)
        #expect(Self.property("volume", of: sockets[2]) as? Double == 40)
        #expect(Self.property("speed", of: sockets[2]) as? Double == 1.5)

        // Started by the user manager, each in a unit of its own, outside restored's sandbox.
        let units = try await manager.transientUnits()
        #expect(units.count == 3, "\(units.map(\.command))")
        #expect(units.allSatisfy { $0.name.hasPrefix("app-restored-io.mpv.Mpv@") })
        #expect(units.compactMap { manager.spawned[$0.name] }.map { ProcProcess.status("Seccomp", of: $0) } == ["0", "0", "0"])

        // A second restore finds them there and starts nothing.
        #expect(try await admin.call("Restore", [.strings([Self.appID]), .boolean(true)]) == [.uint32(1)])
        #expect(try await manager.transientUnits().count == 3)

        kill(daemon.pid, SIGTERM)
        #expect(await daemon.terminated() == 0)
    }

    @Test("A launch through the toolkit from the installed unit's sandbox lands in a transient unit of a real systemd --user (app-restored-io.mpv.Mpv@…, app.slice) with no seccomp filter, its file named with $, % and spaces reaching mpv as it was", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"), .timeLimit(.minutes(3)))
    func launchOutsideTheSandbox() async throws {
        // The plugin saves every mpv of the user: no other test's may run meanwhile.
        let mpvLock = try await SharedTestLock.acquire("mpv")
        defer { mpvLock.release() }
        let plugins = try TemporaryTestDirectory()
        try FileManager.default.createSymbolicLink(atPath: plugins.path + "/libExampleMpvPlugin.so", withDestinationPath: BuildProducts.plugin("ExampleMpvPlugin"))
        let installation = try await InstalledUnitTests.installed(arguments: ["--plugin-dir", plugins.path, "--autosave-interval", "0"])
        let manager = installation.manager
        defer { manager.stop() }
        let configuration = manager.home + "/.config/restored"
        try FileManager.default.createDirectory(atPath: configuration, withIntermediateDirectories: true)
        try "[\(Self.appID)]\narguments = \(Self.quiet.joined(separator: " "))\n".write(toFile: configuration + "/restored.conf", atomically: true, encoding: .utf8)
        let file = manager.directory + "/media $HOME %h/song $USER 100%.wav"
        try FileManager.default.createDirectory(atPath: FilePath(file).removingLastComponent().string, withIntermediateDirectories: true)
        try Self.silence(file, seconds: 90)
        let socket = manager.directory + "/player.sock"
        var player: ChildProcess? = try await Self.player(file, socket: socket, paused: true, in: manager.directory)
        defer { if let player { kill(player.pid, SIGKILL) } }
        try await Self.seek(socket, to: 42)

        #expect(try await manager.systemctl(["start", "restored.service"]).status == 0)
        let control = { (arguments: [String]) in
            try await CompletedCommand.run(installation.prefix + "/bin/restored-ctl", arguments, environment: manager.clientEnvironment, in: URL(fileURLWithPath: manager.directory))
        }
        let save = try await control(["save", Self.appID])
        #expect(save.status == 0, "\(save.output)\(save.error)")
        if let running = player {
            kill(running.pid, SIGKILL)
            _ = await running.terminated()
            player = nil
        }
        let restore = try await control(["restore", Self.appID])
        #expect(restore.status == 0, "\(restore.output)\(restore.error) \((try? String(contentsOfFile: installation.log, encoding: .utf8)) ?? "")")
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { Self.property("time-pos", of: socket) as? Double != nil }

        #expect(Self.property("path", of: socket) as? String == file)
        #expect(abs((Self.property("time-pos", of: socket) as? Double ?? 0) - 42) < 0.5)
        let pid = try #require((Self.property("pid", of: socket) as? Double).map { Int32($0) } ?? (Self.property("pid", of: socket) as? Int).map(Int32.init))
        defer { kill(pid, SIGKILL) }
        #expect(ProcProcess.status("Seccomp", of: pid) == "0")
        let cgroup = (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)) ?? ""
        #expect(cgroup.contains("/app.slice/app-restored-io.mpv.Mpv@"), "\(cgroup)")
        let main = try #require(Int32(try await manager.systemctl(["show", "-p", "MainPID", "--value", "restored.service"]).output.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(ProcProcess.status("Seccomp", of: main) == "2")
    }
}
