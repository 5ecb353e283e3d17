import Dispatch
import SystemPackage
import SystemSupport
import UnixSocket
import X11Client

/// A connection restored holds to the desktop's display, to hear the
/// display go: the X server or the Wayland compositor closes it when it
/// exits, whatever else was said before.
///
/// The connection is a real client of the display (the X connection setup,
/// with the session's cookie; a Wayland client that asks nothing), made and
/// held on a queue of its own that sleeps in `poll` until the display closes
/// it or ``release()`` wakes it: nothing is sent, nothing is polled for, and
/// no thread of Swift's concurrency pool waits for the connection setup. An
/// X display is released when the desktop starts ending (an X server that
/// resets when its last client leaves is not kept alive by restored); from
/// then on its socket going (``DisplaySocketWatch``) or a look at it says
/// the rest.
final class DisplayHold: Sendable {
    /// The display held: `wayland-1` or `:0`, as the variables name it.
    let display: String
    private let variables: [String: String]
    private let runtimeDirectory: String?
    private let released = WakeSignal()
    private let queue = DispatchQueue(label: "restored.display")

    /// A hold of `display`, reached through `variables` (`WAYLAND_DISPLAY`,
    /// relative to `runtimeDirectory`, or a local `DISPLAY` with the cookie
    /// of `XAUTHORITY` or `~/.Xauthority`).
    init(display: String, variables: [String: String], runtimeDirectory: String?) {
        self.display = display
        self.variables = variables
        self.runtimeDirectory = runtimeDirectory
    }

    /// Connects on the hold's queue and calls `closed` once there when the
    /// display closes the connection, or `failed` when no connection could
    /// be made (a display gone already, or too slow to answer on a loaded
    /// machine); neither after ``release()``.
    func watch(closed: @escaping @Sendable () -> Void, failed: @escaping @Sendable () -> Void) {
        queue.async { [self] in
            let gone = hold()
            guard !released.isSignalled else { return }
            switch gone {
            case true?: closed()
            case nil: failed()
            case false?: break
            }
        }
    }

    /// Lets the display go: the connection closes once the queue wakes.
    func release() {
        released.signal()
    }

    /// Connects and waits: true when the display closed the connection,
    /// false when released, nil when no connection could be made.
    private func hold() -> Bool? {
        if display == variables["WAYLAND_DISPLAY"],
           let path = display.hasPrefix("/") ? display : runtimeDirectory.map({ $0 + "/" + display }),
           var socket = try? UnixStreamSocket(connectingTo: FilePath(path)) {
            return socket.waitUntilClosed(interruptedBy: released)
        }
        if let x11 = X11Display(display),
           let client = try? X11Connection(display: x11, authorityFile: X11Display.authorityFile(environment: variables), timeout: .seconds(2)) {
            return client.waitUntilClosed(interruptedBy: released)
        }
        return nil
    }
}
