import Dispatch
import Glibc
import FoundationEssentials
import Synchronization
public import SystemPackage
import SystemSupport
public import WindowManagerIPC

/// Hears i3 or sway exit, through their IPC.
///
/// i3 sends the `shutdown` event with `change: exit` when the user ends it
/// (`i3-msg exit`: on such a desktop, the logout), then exits without
/// waiting for anyone: the X server and the apps on it go moments later.
/// sway (up to 1.12 at least, swaywm/sway#9216) closes its IPC connections
/// without delivering that event. So the event, or the socket closing
/// without a restart announced, is the window manager's end: the earliest
/// word of the logout these desktops give. `change: restart` (i3 restarting
/// in place) keeps the session: the watch connects again.
public final class WindowManagerExitWatch: Sendable {
    /// The IPC socket watched.
    public let socket: FilePath
    /// Wakes the watching queue out of its wait for the next event.
    private let stopped = WakeSignal()
    private let watching = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "restored.window-manager-ipc")
    private let first: Subscription
    /// How long a restarting window manager may take to listen again.
    static let restartBudget = Duration.seconds(10)

    /// Subscribes to the `shutdown` event at `socket`; throws when the
    /// window manager does not answer within `timeout` or refuses.
    public init(socket: FilePath, timeout: Duration = .seconds(1)) throws(WindowManagerIPCError) {
        self.socket = socket
        first = try Self.subscribe(to: socket, timeout: timeout)
    }

    /// A subscribed connection; its buffer holds what was read past the reply.
    private final class Subscription: @unchecked Sendable {
        // Unchecked: used by the watching queue alone once watching starts.
        let connection: WindowManagerConnection
        init(_ connection: WindowManagerConnection) {
            self.connection = connection
        }

        /// The next whole message, waiting for its bytes until `wake` is signalled.
        func nextMessage(interruptedBy wake: WakeSignal) throws(WindowManagerIPCError) -> WindowManagerIPC.Message {
            try connection.nextMessage(before: .now + .seconds(365 * 86_400), interruptedBy: wake)
        }
    }

    private static func subscribe(to socket: FilePath, timeout: Duration) throws(WindowManagerIPCError) -> Subscription {
        let connection = try WindowManagerConnection(socket: socket, timeout: timeout)
        let reply = try connection.request(WindowManagerIPC.subscribe, payload: Array(#"["shutdown"]"#.utf8))
        guard succeeded(reply) else { throw .subscriptionRefused(String(decoding: reply, as: UTF8.self)) }
        return Subscription(connection)
    }

    /// How the watch ends: its one event.
    public enum Event: Sendable, Hashable {
        /// The window manager is exiting (what said so).
        case exiting(String)
        /// It cannot be followed any more (a restart that did not come
        /// back, bytes not of this protocol).
        case lost(String)
    }

    /// Watches on a queue of its own until the window manager ends, the
    /// watch is lost, ``stop()``, or the stream's consumer stops listening:
    /// the stream ends after its one event, or with none when stopped. A
    /// second call returns a stream that ends at once.
    public func events() -> AsyncStream<Event> {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        guard !watching.exchange(true, ordering: .relaxed) else {
            continuation.finish()
            return events
        }
        continuation.onTermination = { [stopped] _ in stopped.signal() }
        queue.async { [self] in
            defer { continuation.finish() }
            let exiting = { (how: String) in _ = continuation.yield(.exiting(how)) }
            let lost = { (problem: String) in _ = continuation.yield(.lost(problem)) }
            var current = first
            var restarting = false
            while !stopped.isSignalled {
                let message: WindowManagerIPC.Message
                do throws(WindowManagerIPCError) {
                    // Asleep until the window manager speaks or the watch stops.
                    message = try current.nextMessage(interruptedBy: stopped)
                } catch .socket(.interrupted) {
                    return
                } catch .timedOut {
                    continue
                } catch .closed {
                    guard restarting else {
                        exiting("the window manager closed its IPC socket")
                        return
                    }
                    guard let again = reconnect() else {
                        lost("the window manager restarted and did not listen again within \(Self.restartBudget)")
                        return
                    }
                    current = again
                    restarting = false
                    continue
                } catch {
                    lost("\(error)")
                    return
                }
                guard message.type == WindowManagerIPC.shutdownEvent else { continue }
                switch Self.change(message.payload) {
                case "exit":
                    exiting("the window manager's IPC shutdown event")
                    return
                case "restart":
                    restarting = true
                default:
                    break
                }
            }
        }
        return events
    }

    /// After a restart: the socket again, tried until ``restartBudget``.
    private func reconnect() -> Subscription? {
        let deadline = ContinuousClock.now + Self.restartBudget
        while ContinuousClock.now < deadline, !stopped.isSignalled {
            if let subscription = try? Self.subscribe(to: socket, timeout: .seconds(1)) { return subscription }
            usleep(100_000)
        }
        return nil
    }

    /// Stops watching at once.
    public func stop() {
        stopped.signal()
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
