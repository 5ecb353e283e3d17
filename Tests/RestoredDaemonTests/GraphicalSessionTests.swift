import Foundation
import Glibc
import RestoredDBus
import Synchronization
@testable import RestoredDaemon
import RestoredTestSupport
import Testing

/// When a display variable counts as a desktop that is there.
@Suite struct GraphicalSessionTests {
    @Test("R7: a display counts when its socket takes a connection; a variable left from an earlier session does not")
    func reachableDisplays() throws {
        let root = try TemporaryTestDirectory()
        let display = try VirtualDisplay(log: root.path + "/xvfb.log")
        #expect(GraphicalSession.reachesDisplay(["DISPLAY": display.display], runtimeDirectory: nil))
        #expect(GraphicalSession.reachesDisplay(["DISPLAY": display.display + ".0"], runtimeDirectory: nil))
        #expect(GraphicalSession.reachesDisplay(["DISPLAY": "unix" + display.display], runtimeDirectory: nil))
        var free = 901
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(free)") { free += 1 }
        #expect(!GraphicalSession.reachesDisplay(["DISPLAY": ":\(free)"], runtimeDirectory: nil))
        #expect(!GraphicalSession.reachesDisplay([:], runtimeDirectory: nil))
        // A Wayland socket, by name in the runtime directory or by path; a
        // stale file there takes no connection.
        let listener = try #require(Self.listen(at: root.path + "/wayland-1"))
        defer { close(listener) }
        #expect(GraphicalSession.reachesDisplay(["WAYLAND_DISPLAY": "wayland-1"], runtimeDirectory: root.path))
        #expect(GraphicalSession.reachesDisplay(["WAYLAND_DISPLAY": root.path + "/wayland-1"], runtimeDirectory: nil))
        try Data().write(to: URL(fileURLWithPath: root.path + "/wayland-2"))
        #expect(!GraphicalSession.reachesDisplay(["WAYLAND_DISPLAY": "wayland-2"], runtimeDirectory: root.path))
        // A display on another host cannot be checked from here: trusted.
        #expect(GraphicalSession.reachesDisplay(["DISPLAY": "remote.example:0"], runtimeDirectory: nil))
    }

    @Test("A display's socket made or removed in the runtime directory is seen at once (inotify), and other files there are not displays")
    func displaySockets() async throws {
        let root = try TemporaryTestDirectory()
        // The X sockets' directory is one of the test's own, not there.
        let made = DisplaySocketWatch(runtimeDirectory: root.path, x11Directory: root.path + "/x11", problem: { Issue.record("\($0)") })
        let watch = try #require(made)
        defer { watch.stop() }
        var seen = watch.changes.makeAsyncIterator()
        try Data().write(to: URL(fileURLWithPath: root.path + "/wayland-7.lock"))
        try Data().write(to: URL(fileURLWithPath: root.path + "/bus"))
        let listener = try #require(Self.listen(at: root.path + "/wayland-7"))
        #expect(await seen.next() == .appeared("wayland-7"))
        #expect(DisplaySocketWatch.anyDisplayUp(runtimeDirectory: root.path))
        close(listener)
        try FileManager.default.removeItem(atPath: root.path + "/wayland-7")
        #expect(await seen.next() == .removed("wayland-7"))
        #expect(DisplaySocketWatch.display(named: "X12", x11: true) == ":12")
        #expect(DisplaySocketWatch.display(named: "X12-lock", x11: true) == nil)
        #expect(DisplaySocketWatch.display(named: "wayland-0", x11: false) == "wayland-0")
        #expect(DisplaySocketWatch.display(named: "pipewire-0", x11: false) == nil)
    }

    @Test("R7: where the X sockets' directory does not exist (no X server ran since boot), its parent is watched for it and nothing is said; once an X server makes it, its sockets are seen (those made with it at once); removed and made again, it is watched again", .timeLimit(.minutes(1)))
    func x11DirectoryMadeLater() async throws {
        let root = try TemporaryTestDirectory()
        let x11 = root.path + "/.X11-unix"
        let made = DisplaySocketWatch(runtimeDirectory: nil, x11Directory: x11, problem: { Issue.record("\($0)") })
        let watch = try #require(made)
        defer { watch.stop() }
        var seen = watch.changes.makeAsyncIterator()
        // Made with a socket already in it, as an X server does (moved in whole).
        let staging = root.path + "/staging"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        let first = try #require(Self.listen(at: staging + "/X5"))
        try FileManager.default.moveItem(atPath: staging, toPath: x11)
        #expect(await seen.next() == .appeared(":5"))
        #expect(FileManager.default.fileExists(atPath: x11))
        // A socket made in it later.
        let second = try #require(Self.listen(at: x11 + "/X6"))
        #expect(await seen.next() == .appeared(":6"))
        close(first)
        close(second)
        // Gone, then made again: watched again.
        try FileManager.default.removeItem(atPath: x11)
        var next = await seen.next()
        while next != nil, next != .removed(":6") { next = await seen.next() }
        try await Task.sleep(for: .milliseconds(100))
        try FileManager.default.createDirectory(atPath: x11, withIntermediateDirectories: false)
        let third = try #require(Self.listen(at: x11 + "/X7"))
        defer { close(third) }
        next = await seen.next()
        while next != nil, next != .appeared(":7") { next = await seen.next() }
        #expect(next == .appeared(":7"))
    }

    @Test("The X sockets' directory removed with its parent: no watch can be made again, and that is said (not left silent)", .timeLimit(.minutes(1)))
    func x11DirectoryGoneForGood() async throws {
        let root = try TemporaryTestDirectory()
        let parent = root.path + "/tmp"
        let x11 = parent + "/.X11-unix"
        try FileManager.default.createDirectory(atPath: x11, withIntermediateDirectories: true)
        let (problems, problem) = AsyncStream<String>.makeStream()
        let made = DisplaySocketWatch(runtimeDirectory: nil, x11Directory: x11, problem: { problem.yield($0) })
        let watch = try #require(made)
        defer { watch.stop() }
        try FileManager.default.removeItem(atPath: parent)
        var said = problems.makeAsyncIterator()
        let first = await said.next()
        #expect(first?.hasPrefix("cannot watch \(parent) for \(x11) to be made (No such file or directory)") == true, "\(first ?? "-")")
    }

    @Test("R6, R7: a real systemd --user's graphical-session.target, started and stopped twice by a target bound to it, is news once per change: active once its start job is done, stopped once its stop job is; the stop's own signals (active, its job pending) never say a desktop starts", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func targetChanges() async throws {
        let manager = try await UserManager()
        defer { manager.stop() }
        try "[Unit]\nBindsTo=graphical-session.target\nBefore=graphical-session.target\n"
            .write(toFile: manager.unitDirectory + "/desktop-test.target", atomically: true, encoding: .utf8)
        try await manager.systemctl(["daemon-reload"])
        let bus = try await DBusConnection.connect(to: .address(manager.busAddress))
        defer { bus.close() }
        let seen = Mutex<[Bool]>([])
        let watch = try #require(await UserManagerWatch.subscribe(on: bus))
        let watching = Task {
            await watch.run { signal in
                if case .target(let active) = signal { seen.withLock { $0.append(active) } }
            }
        }
        defer { watching.cancel() }
        // graphical-session.target stops once unneeded, after `systemctl
        // stop` of the target bound to it has returned: each step waits for
        // the manager to say the state, then for the news of it.
        let state = { try await manager.systemctl(["is-active", "graphical-session.target"]).output.trimmingCharacters(in: .whitespacesAndNewlines) }
        for round in 0 ..< 2 {
            #expect(try await manager.systemctl(["start", "desktop-test.target"]).status == 0)
            try await LogindInhibitorTests.eventually(within: .seconds(30)) { try await state() == "active" && seen.withLock { $0.count } > 2 * round }
            #expect(try await manager.systemctl(["stop", "desktop-test.target"]).status == 0)
            try await LogindInhibitorTests.eventually(within: .seconds(30)) { try await state() == "inactive" && seen.withLock { $0.count } > 2 * round + 1 }
        }
        // Nothing more comes after the last stop.
        try await Task.sleep(for: .milliseconds(500))
        #expect(seen.withLock { $0 } == [true, false, true, false])
    }

    @Test("The target's signals as systemd 252 sends them: a start, a stop, other properties changing, a restart and a stop a start replaced (each ending active with its job done) and a failed start are news once each")
    func targetReadings() {
        func signal(_ state: String, job: UInt32) -> [String: DBusValue] {
            ["ActiveState": .variant(.string(state)), "Job": .variant(.structure([.uint32(job), .objectPath(job == 0 ? "/" : "/org/freedesktop/systemd1/job/\(job)")]))]
        }
        var reading = UserManagerWatch.TargetReading()
        let start = [signal("inactive", job: 7), signal("active", job: 7), signal("active", job: 0)]
        let stop = [signal("active", job: 8), signal("active", job: 8), signal("inactive", job: 8), signal("inactive", job: 0)]
        #expect(start.map { reading.news(in: $0) } == [nil, nil, true])
        #expect(reading.news(in: signal("active", job: 0)) == nil)
        #expect(stop.map { reading.news(in: $0) } == [nil, nil, nil, false])
        #expect(start.map { reading.news(in: $0) } == [nil, nil, true])
        // A restart, or a stop that a start replaced: active before and after, a new start.
        #expect([signal("active", job: 9), signal("active", job: 0)].map { reading.news(in: $0) } == [nil, true])
        #expect(stop.map { reading.news(in: $0) } == [nil, nil, nil, false])
        #expect([signal("activating", job: 10), signal("failed", job: 0)].map { reading.news(in: $0) } == [nil, false])
        // A signal without the job (another manager) is taken as it says.
        #expect(reading.news(in: ["ActiveState": .variant(.string("active"))]) == true)
    }

    /// A listening stream socket at `path`, as a compositor has; nil if it cannot be made.
    static func listen(at path: String) -> Int32? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(descriptor, 4) == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }
}
