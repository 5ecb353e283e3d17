import Foundation
import Glibc
import PluginToolkit
import RestoredTestSupport
import SystemPackage
import Testing
import ProcFiles

/// The plugin toolkit's pieces, each against the real thing it reads or
/// talks to: a listening socket, the process table, a real user manager.
@Suite struct PluginToolkitTests {
    @Test("The socket client answers a request with the line that is its answer, skipping the app's own lines; a peer that does not answer costs the deadline; a line past the limit is refused, never buffered")
    func socketRequests() async throws {
        let directory = try TemporaryTestDirectory()
        let listener = try UnixListener(path: directory.path + "/app.sock")
        let client = try SocketRequestClient(connectingTo: FilePath(listener.path), maximumLineLength: 64)
        listener.accept()
        listener.send(Array("{\"event\":\"pause\"}\n{\"request_id\":3,\"data\":1}\n".utf8))
        let answer = try client.request("{\"request_id\":3}", before: .now + .seconds(10)) { $0.contains("\"request_id\":3") }
        #expect(answer == "{\"request_id\":3,\"data\":1}")

        // Silent: the deadline ends the wait (without one, this would hang).
        #expect(throws: SocketError.timedOut) { try client.request("{}", before: .now + .milliseconds(300)) }

        listener.send(Array(repeating: UInt8(ascii: "x"), count: 200))
        #expect(throws: SocketError.tooLarge(limit: 65)) { try client.receiveLine(before: .now + .seconds(10)) }
        listener.closePeer()

        // A socket nobody listens on: refused at once, and Waiting gives up at its deadline.
        #expect(throws: (any Error).self) { try SocketRequestClient(connectingTo: FilePath(directory.path + "/none.sock")) }
        #expect(!Waiting.forSocket(FilePath(directory.path + "/none.sock"), until: .now + .milliseconds(200)))
        #expect(Waiting.forSocket(FilePath(listener.path), until: .now + .seconds(10)))
    }

    @Test("Waiting for a socket to be let go: no file and a socket file nobody listens on are let go at once; a listener that closes every connection holds it until it stops, and a wait that outlasts it gives up at its deadline")
    func socketRelease() throws {
        let directory = try TemporaryTestDirectory()
        #expect(Waiting.forSocketRelease(FilePath(directory.path + "/none.sock"), until: .now + .seconds(10)))
        let path = directory.path + "/ending.sock"
        let ending = try ClosingUnixListener(path: path)
        defer { ending.stop() }
        let began = ContinuousClock.now
        #expect(!Waiting.forSocketRelease(FilePath(path), until: .now + .milliseconds(300)))
        #expect(ContinuousClock.now - began >= .milliseconds(300))
        let stopper = Thread { Thread.sleep(forTimeInterval: 0.5); ending.stop() }
        stopper.start()
        #expect(Waiting.forSocketRelease(FilePath(path), until: .now + .seconds(30)))
        // The file stays, with nobody listening: a stale socket.
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(Waiting.forSocketRelease(FilePath(path), until: .now))
    }

    @Test("The user's processes of a program are found by name and by path, with their command line, directory and start time; a process gone is not current any more")
    func userProcesses() async throws {
        let directory = try TemporaryTestDirectory()
        let marker = "\(UInt64.random(in: 1 ... .max))"
        let sleeper = try ChildProcess("/bin/sleep", ["300", marker], log: directory.path + "/sleep.log")
        defer { kill(sleeper.pid, SIGKILL) }
        // Found once it has executed sleep.
        try await UserUnitLauncherTests.eventually { !UserProcess.running("sleep").filter { $0.commandLine.last == marker }.isEmpty }
        let found = UserProcess.running("sleep").filter { $0.commandLine.last == marker }
        #expect(found.map(\.pid) == [sleeper.pid])
        let process = try #require(found.first)
        #expect(process.commandLine == ["/bin/sleep", "300", marker])
        #expect(process.directory != nil)
        #expect(process.startTime > 0)
        #expect(UserProcess.running(process.executable?.string ?? "/bin/sleep").contains { $0.pid == sleeper.pid })
        #expect(!UserProcess.running("sleep-not-a-program").contains { $0.pid == sleeper.pid })
        #expect(process.current == process)
        kill(sleeper.pid, SIGKILL)
        _ = await sleeper.terminated()
        #expect(process.current == nil)
    }

    /// Runs `restored-test-launch` (AppLauncher in a process of its own,
    /// as a plugin host runs it) with `environment`.
    static func launch(_ appID: String, _ command: [String], in directory: String? = nil, environment: [String: String]) async throws -> [String] {
        let run = try await CompletedCommand.run(
            BuildProducts.executable("restored-test-launch"), [appID, "20"] + (directory.map { [$0] } ?? []) + ["--"] + command,
            environment: environment, in: URL(fileURLWithPath: "/")
        )
        #expect(run.status == 0, "\(run.output)\(run.error)")
        return run.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ").map(String.init)
    }

    @Test("AppLauncher on a real systemd --user (found through RESTORED_LAUNCH_BUS) starts the app in an app-restored unit and gives its main process; without any bus it starts it detached, with its arguments as they were", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func launches() async throws {
        let manager = try await UserManager()
        defer { manager.stop() }
        var environment = manager.clientEnvironment
        environment["RESTORED_LAUNCH_BUS"] = manager.busAddress
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent"
        let launched = try await Self.launch("org.example.Sleeper", ["sleep", "3600"], environment: environment)
        #expect(launched.first == "unit", "\(launched)")
        let unit = try #require(launched.dropFirst().first)
        #expect(unit.hasPrefix("app-restored-org.example.Sleeper@"))
        let pid = try #require(launched.last.flatMap { Int32($0) })
        defer { kill(pid, SIGKILL) }
        #expect((ProcProcess.commandLine(of: pid) ?? []) == ["sleep", "3600"])
        let cgroup = ProcFile.text(atPath: "/proc/\(pid)/cgroup") ?? ""
        #expect(cgroup.contains("/app.slice/\(unit)"), "\(cgroup)")

        // No bus at all: detached, said as such, each argument kept.
        environment["RESTORED_LAUNCH_BUS"] = "unix:path=/nonexistent"
        let directory = try TemporaryTestDirectory()
        let recorded = directory.path + "/argv"
        let detached = try await Self.launch(
            "org.example.Recorder",
            ["/bin/sh", "-c", "printf '%s\\0' \"$@\" > \"$0\"; exec sleep 3600", recorded, "$HOME", "%h a", "$(touch ran)"],
            in: directory.path, environment: environment
        )
        #expect(detached.first == "detached", "\(detached)")
        let detachedPID = try #require(detached.last.flatMap { Int32($0) })
        defer { kill(detachedPID, SIGKILL) }
        try await UserUnitLauncherTests.eventually { ((try? Data(contentsOf: URL(fileURLWithPath: recorded)))?.count ?? 0) > 0 }
        let argv = try Data(contentsOf: URL(fileURLWithPath: recorded)).split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
        #expect(argv == ["$HOME", "%h a", "$(touch ran)"])
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/ran"))
    }
}
