import Foundation
import RestoredTestSupport
import Testing
import X11Client

/// The X protocol client against a real Xvfb and openbox, with a real xterm.
@Suite(.serialized) struct X11ConnectionTests {
    @Test("Display names and authority files")
    func names() throws {
        #expect(X11Display(":0")?.number == 0)
        #expect(X11Display(":12.0")?.socketPath == "/tmp/.X11-unix/X12")
        #expect(X11Display("unix:3")?.number == 3)
        #expect(X11Display("remote:0") == nil)
        #expect(X11Display("") == nil)
        // An authority file with a wildcard entry for display 7.
        var file: [UInt8] = [0xFF, 0xFF, 0, 0, 0, 1, UInt8(ascii: "7"), 0, 18] + Array("MIT-MAGIC-COOKIE-1".utf8) + [0, 4, 1, 2, 3, 4]
        file += [0x01, 0x00, 0, 3] + Array("abc".utf8) + [0, 1, UInt8(ascii: "8"), 0, 18] + Array("MIT-MAGIC-COOKIE-1".utf8) + [0, 1, 9]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("xauth-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(file).write(to: URL(fileURLWithPath: path))
        #expect(X11Display(":7")?.cookie(authorityFile: path) == [1, 2, 3, 4])
        #expect(X11Display(":8")?.cookie(authorityFile: path) == nil)
    }

    @Test("A managed xterm's process, workspace and frame are read, and it goes where and to the workspace it is told")
    func placement() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("x11-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let screen = try VirtualDisplay(log: root + "/xvfb.log", windowManager: true)
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = screen.display
        let terminal = try ChildProcess("/usr/bin/xterm", ["-geometry", "80x24+10+10"], environment: environment, log: root + "/xterm.log")
        defer { terminal.stop() }
        let connection = try X11Connection(display: try #require(X11Display(screen.display)), authorityFile: nil)
        // The window manager has it once it lists it (a hang guard, not a speed requirement).
        var window: ManagedWindow?
        let deadline = ContinuousClock.now + .seconds(30)
        while window == nil, ContinuousClock.now < deadline {
            window = try? connection.managedWindows().first { $0.pid == terminal.pid }
            if window == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let found = try #require(window)
        #expect(found.placement.desktop == 0)
        #expect(found.placement.width > 100 && found.placement.height > 100)

        // (Its size as it is: an xterm's size moves in steps of its character cells.)
        let target = WindowPlacement(desktop: 1, x: 300, y: 200, width: found.placement.width, height: found.placement.height)
        try connection.place(found.id, at: target)
        var placed: WindowPlacement?
        let again = ContinuousClock.now + .seconds(30)
        while placed != target, ContinuousClock.now < again {
            placed = try connection.managedWindows().first { $0.id == found.id }?.placement
            if placed != target { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(placed == target)
    }

    @Test("RandR 1.5's monitors are read (Xvfb's one, named for its output, the whole screen), with the names of their atoms")
    func monitors() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("x11-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // With a window manager, a client that stays: Xvfb resets when its last client leaves.
        let screen = try VirtualDisplay(log: root + "/xvfb.log", windowManager: true)
        let connection = try X11Connection(display: try #require(X11Display(screen.display)), authorityFile: nil)
        let monitors = try connection.monitors()
        #expect(monitors == [X11Monitor(name: "screen", primary: monitors.first?.primary ?? false, x: 0, y: 0, width: 1280, height: 800)], "\(monitors)")
        #expect(monitors.first?.contains(x: 1279, y: 799) == true && monitors.first?.contains(x: 1280, y: 0) == false)
        #expect(try connection.atomName(try connection.atom("_NET_WM_PID")) == "_NET_WM_PID")
    }
}
