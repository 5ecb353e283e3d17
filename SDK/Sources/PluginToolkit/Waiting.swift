import Glibc
public import SystemPackage
import UnixSocket
import X11Client

/// Waits for a launched app to be ready, each bounded by a deadline (take
/// it from ``WalkTime/deadline(in:atMost:)``), checking every 20 ms.
public enum Waiting {
    /// Checks `condition` until it holds (true) or `deadline` passes (false).
    public static func until(_ deadline: ContinuousClock.Instant, every interval: Duration = .milliseconds(20), _ condition: () -> Bool) -> Bool {
        while true {
            if condition() { return true }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let pause = min(interval, left)
            usleep(useconds_t(pause.components.seconds * 1_000_000 + pause.components.attoseconds / 1_000_000_000_000))
        }
    }

    /// Waits until something accepts connections on the socket at `path`
    /// (true) or `deadline` passes (false): the moment an app that listens
    /// there can be asked.
    public static func forSocket(_ path: FilePath, until deadline: ContinuousClock.Instant) -> Bool {
        until(deadline) { (try? UnixStreamSocket(connectingTo: path)) != nil }
    }

    /// Waits until nothing accepts connections on the socket at `path`
    /// (true) or `deadline` passes (false): the moment a server that is
    /// ending has let go of its socket, so that a new one can listen there.
    /// A socket file nobody listens on, or no file, is let go already; a
    /// listener whose queue is full is still there.
    public static func forSocketRelease(_ path: FilePath, until deadline: ContinuousClock.Instant) -> Bool {
        until(deadline) {
            do throws(UnixSocketError) {
                _ = try UnixStreamSocket(connectingTo: path)
                return false
            } catch .cannotConnect(_, .resourceTemporarilyUnavailable) {
                return false
            } catch {
                return true
            }
        }
    }

    /// Waits until the X11 window manager of `environment`'s `DISPLAY`
    /// manages a window of process `pid` (`_NET_CLIENT_LIST`,
    /// `_NET_WM_PID`; true) or `deadline` passes (false). False at once
    /// without an X11 display: no Wayland protocol tells one client of
    /// another's windows, so on Wayland wait for the app's socket or D-Bus
    /// name instead.
    public static func forWindow(ofProcess pid: Int32, environment: [String: String], until deadline: ContinuousClock.Instant) -> Bool {
        guard let display = X11Display(environment: environment) else { return false }
        var connection: X11Connection?
        return until(deadline, every: .milliseconds(50)) {
            if connection == nil {
                let left = max(.milliseconds(1), ContinuousClock.now.duration(to: deadline))
                connection = try? X11Connection(display: display, authorityFile: X11Display.authorityFile(environment: environment), timeout: min(left, .seconds(2)))
            }
            guard let windows = try? connection?.managedWindows() else {
                connection = nil
                return false
            }
            return windows.contains { $0.pid == pid }
        }
    }
}
