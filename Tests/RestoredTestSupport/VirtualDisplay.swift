import Foundation
import X11Client

/// An X server of the test's own (Xvfb), with a real window manager
/// (openbox) when asked: both stopped by pid at the end.
public final class VirtualDisplay {
    /// Its name, for `DISPLAY`.
    public let display: String
    private let server: ChildProcess
    private let windowManager: ChildProcess?

    /// Starts Xvfb on a free display (or on display `number`, which the
    /// caller knows to be free), and openbox on it with `windowManager`.
    public init(log: String, windowManager: Bool = false, number chosen: Int? = nil) throws {
        var number = chosen ?? Int.random(in: 200 ... 900)
        while chosen == nil, FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") { number += 1 }
        display = ":\(number)"
        server = try ChildProcess("/usr/bin/Xvfb", [display, "-nolisten", "tcp", "-screen", "0", "1280x800x24"], log: log)
        // The server takes clients once a connection succeeds (its socket
        // comes a little before); the window manager is up once it names
        // itself on the root window (EWMH's _NET_SUPPORTING_WM_CHECK).
        // Hang guards, not speed requirements.
        let name = X11Display(display)!
        let deadline = ContinuousClock.now + .seconds(30)
        var connection: X11Connection?
        while connection == nil, ContinuousClock.now < deadline {
            connection = try? X11Connection(display: name, authorityFile: nil)
            if connection == nil { usleep(20_000) }
        }
        if windowManager {
            var environment = ProcessInfo.processInfo.environment
            environment["DISPLAY"] = display
            self.windowManager = try ChildProcess("/usr/bin/openbox", [], environment: environment, log: log + ".openbox")
            while ((try? connection?.property32("_NET_SUPPORTING_WM_CHECK", of: connection!.root)) ?? nil)?.isEmpty ?? true, ContinuousClock.now < deadline {
                usleep(20_000)
            }
        } else {
            self.windowManager = nil
        }
    }

    deinit {
        windowManager?.stop()
        server.stop()
    }
}
