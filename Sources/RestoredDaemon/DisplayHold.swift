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
/// with the session's cookie; a Wayland client that asks nothing), held on
/// a queue of its own that sleeps in `poll` until the display closes it or
/// ``release()`` wakes it: nothing is sent, nothing is polled for. It is
/// released when the desktop starts ending (an X server that resets when
/// its last client leaves is not kept alive by restored); from then on the
/// display's socket going (``DisplaySocketWatch``) says the rest.
final class DisplayHold: Sendable {
    /// The display held: `wayland-1` or `:0`.
    let display: String
    private let connection: Connection
    private let released = WakeSignal()
    private let queue = DispatchQueue(label: "restored.display")

    /// One connection, used by the queue alone once held.
    private enum Connection: @unchecked Sendable {
        case wayland(Box<UnixStreamSocket>)
        case x11(X11Connection)
    }

    private final class Box<Value: ~Copyable>: @unchecked Sendable {
        var value: Value
        init(_ value: consuming Value) { self.value = value }
    }

    /// Connects to the display `variables` name (`WAYLAND_DISPLAY` first,
    /// relative to `runtimeDirectory`, then a local `DISPLAY` with
    /// `XAUTHORITY`'s cookie); nil when none takes a connection.
    init?(variables: [String: String], runtimeDirectory: String?) {
        if let wayland = variables["WAYLAND_DISPLAY"], !wayland.isEmpty,
           let path = wayland.hasPrefix("/") ? wayland : runtimeDirectory.map({ $0 + "/" + wayland }),
           let socket = try? UnixStreamSocket(connectingTo: FilePath(path)) {
            display = wayland
            connection = .wayland(Box(socket))
            return
        }
        if let x11 = X11Display(environment: variables),
           let client = try? X11Connection(display: x11, authorityFile: X11Display.authorityFile(environment: variables), timeout: .seconds(2)) {
            display = ":\(x11.number)"
            connection = .x11(client)
            return
        }
        return nil
    }

    /// Calls `closed` once, on the hold's queue, when the display closes the
    /// connection; never after ``release()``.
    func watch(closed: @escaping @Sendable () -> Void) {
        queue.async { [connection, released] in
            let gone = switch connection {
            case .wayland(let box): box.value.waitUntilClosed(interruptedBy: released)
            case .x11(let client): client.waitUntilClosed(interruptedBy: released)
            }
            if gone && !released.isSignalled { closed() }
        }
    }

    /// Lets the display go: the connection closes once the queue wakes.
    func release() {
        released.signal()
    }
}
