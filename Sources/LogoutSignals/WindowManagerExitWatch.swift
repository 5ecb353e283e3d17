import Dispatch
import FoundationEssentials
import Synchronization
public import SystemPackage
import UnixSocket
import X11Client

/// Hears i3 or sway exit, through their IPC `shutdown` event.
///
/// i3 and sway send `shutdown` with `change: exit` when the user ends them
/// (`i3-msg exit`, `swaymsg exit`: on such a desktop, the logout), then exit
/// without waiting for anyone: the X server or the Wayland display, and the
/// apps on it, go moments later. The event is the earliest word of the
/// logout these desktops give; it comes before the apps go. (`change:
/// restart`, an in-place restart, keeps the session and is ignored.)
public final class WindowManagerExitWatch: Sendable {
    /// The IPC socket watched.
    public let socket: FilePath
    private let stopped = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "restored.window-manager-ipc")

    /// The socket of the running sway or i3: `SWAYSOCK`, `I3SOCK`, or the
    /// `I3_SOCKET_PATH` property i3 puts on the root window of `DISPLAY`.
    public static func socket(environment: [String: String]) -> FilePath? {
        for name in ["SWAYSOCK", "I3SOCK"] {
            if let path = environment[name], path.hasPrefix("/") { return FilePath(path) }
        }
        guard let name = environment["DISPLAY"], let display = X11Display(name),
              let connection = try? X11Connection(display: display, authorityFile: environment["XAUTHORITY"]),
              let path = (try? connection.propertyText("I3_SOCKET_PATH", of: connection.root)) ?? nil, path.hasPrefix("/")
        else { return nil }
        return FilePath(path)
    }

    /// Subscribes to the `shutdown` event at `socket`; throws when the
    /// window manager does not answer within `timeout` or refuses.
    public init(socket: FilePath, timeout: Duration = .seconds(1)) throws(WindowManagerIPCError) {
        self.socket = socket
        let connection = try Self.connect(to: socket)
        do {
            try connection.send(WindowManagerIPC.Message(type: WindowManagerIPC.subscribe, payload: Array(#"["shutdown"]"#.utf8)).bytes, before: .now + timeout)
        } catch {
            throw .socket("\(error)")
        }
        var reader = WindowManagerIPC.Reader()
        let deadline = ContinuousClock.now + timeout
        var reply: WindowManagerIPC.Message?
        while reply == nil {
            let bytes: [UInt8]
            do {
                bytes = try connection.receive(before: deadline)
            } catch {
                throw .socket("\(error)")
            }
            guard !bytes.isEmpty else { throw .socket("the window manager closed the socket") }
            reply = try reader.read(bytes).first { $0.type == WindowManagerIPC.subscribe }
        }
        let text = String(decoding: reply?.payload ?? [], as: UTF8.self)
        guard Self.succeeded(reply?.payload ?? []) else { throw .subscriptionRefused(text) }
        box = ConnectionBox(connection)
        firstReader = reader
    }

    private static func connect(to socket: FilePath) throws(WindowManagerIPCError) -> UnixStreamSocket {
        do {
            return try UnixStreamSocket(connectingTo: socket)
        } catch {
            throw .socket("\(error)")
        }
    }

    private let box: ConnectionBox
    /// What was read past the subscription's reply.
    private let firstReader: WindowManagerIPC.Reader
    private let watching = Atomic<Bool>(false)

    /// Calls `exiting` (once, on a queue of its own) when the window manager
    /// says it exits; calls `lost` when the socket closes without that word.
    public func watch(exiting: @escaping @Sendable () -> Void, lost: @escaping @Sendable (String) -> Void) {
        guard !watching.exchange(true, ordering: .relaxed) else { return }
        queue.async { [self] in
            var reader = firstReader
            while !stopped.load(ordering: .relaxed) {
                let bytes: [UInt8]
                do {
                    bytes = try box.connection.receive(before: .now + .seconds(1))
                } catch {
                    continue // no event within the second: look at `stopped` again
                }
                guard !bytes.isEmpty else {
                    lost("the window manager closed its IPC socket")
                    return
                }
                do {
                    for message in try reader.read(bytes) where message.type == WindowManagerIPC.shutdownEvent {
                        if Self.change(message.payload) == "exit" {
                            exiting()
                            return
                        }
                    }
                } catch {
                    lost("\(error)")
                    return
                }
            }
        }
    }

    /// Stops watching (within a second).
    public func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    private final class ConnectionBox: @unchecked Sendable {
        // Unchecked: used by the watching queue alone.
        let connection: UnixStreamSocket
        init(_ connection: consuming UnixStreamSocket) { self.connection = connection }
    }

    private struct SubscribeReply: Decodable { var success: Bool }
    private struct ShutdownEvent: Decodable { var change: String }

    static func succeeded(_ payload: [UInt8]) -> Bool {
        (try? JSONDecoder().decode(SubscribeReply.self, from: Data(payload)))?.success == true
    }

    static func change(_ payload: [UInt8]) -> String? {
        (try? JSONDecoder().decode(ShutdownEvent.self, from: Data(payload)))?.change
    }
}
