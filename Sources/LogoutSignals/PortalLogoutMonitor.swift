public import RestoredDBus
import Synchronization

/// Hears the session end through the XDG desktop portal's Inhibit monitor
/// (`org.freedesktop.portal.Inhibit.CreateMonitor`): GNOME 49 and later,
/// KDE Plasma.
///
/// The portal's `StateChanged` says `QUERY_END` when the user asked to log
/// out and before anything is killed; the desktop then waits (a second,
/// by the portal's documentation) for `QueryEndResponse`, and `ENDING` once
/// the logout goes on. A `RUNNING` after `QUERY_END` is a logout the user
/// cancelled.
public final class PortalLogoutMonitor: Sendable {
    /// The portal frontend's bus name.
    public static let busName = "org.freedesktop.portal.Desktop"
    static let path = "/org/freedesktop/portal/desktop"
    static let interface = "org.freedesktop.portal.Inhibit"
    /// How long the desktop waits for `QueryEndResponse`.
    public static let queryEndLimit = Duration.seconds(1)

    /// The session's state, as `StateChanged` says it.
    public enum SessionState: UInt32, Sendable {
        /// The session runs (again, after a cancelled logout).
        case running = 1
        /// The user asked to end the session; the desktop waits for answers.
        case queryEnd = 2
        /// The session ends.
        case ending = 3
    }

    private let connection: DBusConnection
    /// The monitor's session object.
    public let session: String
    private let signals: AsyncStream<DBusMessage>
    /// What hands the portal's signals over as ``states()``, and whether
    /// ``close()`` ended it (a later ``states()`` ends at once).
    private let forwarding = Mutex<(task: Task<Void, Never>?, closed: Bool)>((nil, false))

    private init(connection: DBusConnection, session: String, signals: AsyncStream<DBusMessage>) {
        self.connection = connection
        self.session = session
        self.signals = signals
    }

    /// Opens a monitor (the bus starts the portal when it is activatable);
    /// nil when there is no portal on the bus. Throws when the portal
    /// answers without a monitor (no backend implements it for this
    /// desktop) or not within `timeout`.
    public static func open(on connection: DBusConnection, timeout: Duration = .seconds(2)) async throws(DBusError) -> PortalLogoutMonitor? {
        let token = "restored" + String(UInt32.random(in: 1 ... .max), radix: 16)
        let sender = String(connection.uniqueName.dropFirst().map { $0 == "." ? "_" : $0 })
        let request = path + "/request/\(sender)/\(token)"
        // Matched before the call: the answer and the first state may come at once.
        let responses = try await connection.signals(matching: DBusMatchRule(sender: busName, path: request, interface: "org.freedesktop.portal.Request", member: "Response"))
        let states = try await connection.signals(matching: DBusMatchRule(sender: busName, interface: interface, member: "StateChanged"))
        let reply: [DBusValue]
        do {
            reply = try await connection.call(
                destination: busName, path: path, interface: interface, member: "CreateMonitor",
                arguments: [.string(""), .properties([("handle_token", .string(token)), ("session_handle_token", .string(token))])], timeout: timeout
            )
        } catch where error.name == "org.freedesktop.DBus.Error.ServiceUnknown" || error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            return nil
        }
        guard reply.first?.stringValue == request else {
            throw DBusError.failed("the portal answered CreateMonitor with the request \(reply.first?.stringValue ?? "?"), not \(request)")
        }
        let answer = await responses.first(within: timeout) { $0 }
        guard let arguments = try? answer?.arguments(), let code = arguments.first?.uint64Value else {
            throw DBusError.failed("the portal did not answer CreateMonitor within \(timeout)")
        }
        guard code == 0, let session = arguments.dropFirst().first?.stringKeyedValue?["session_handle"]?.stringValue else {
            throw DBusError.failed("the portal refused a monitor (response \(code)): its backend for this desktop has no Inhibit monitor")
        }
        return PortalLogoutMonitor(connection: connection, session: session, signals: states)
    }

    /// The session's states, as they come, until ``close()`` or the bus
    /// goes; for one consumer.
    public func states() -> AsyncStream<SessionState> {
        let session = self.session
        let signals = self.signals
        return AsyncStream { continuation in
            guard !forwarding.withLock({ $0.closed }) else {
                continuation.finish()
                return
            }
            let task = Task {
                for await signal in signals {
                    guard let arguments = try? signal.arguments(), arguments.first?.stringValue == session,
                          let value = arguments.dropFirst().first?.stringKeyedValue?["session-state"]?.uint64Value,
                          let state = UInt32(exactly: value).flatMap(SessionState.init(rawValue:))
                    else { continue }
                    continuation.yield(state)
                }
                continuation.finish()
            }
            let closed = forwarding.withLock { forwarding in
                forwarding.task = task
                return forwarding.closed
            }
            if closed { task.cancel() }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Tells the desktop restored is ready for the session to end.
    public func respondToQueryEnd() async throws(DBusError) {
        _ = try await connection.call(
            destination: Self.busName, path: Self.path, interface: Self.interface, member: "QueryEndResponse",
            arguments: [.objectPath(session)], timeout: .milliseconds(500)
        )
    }

    /// Closes the monitor's session, which ends ``states()``.
    public func close() async {
        defer {
            forwarding.withLock { forwarding in
                forwarding.closed = true
                return forwarding.task
            }?.cancel()
        }
        _ = try? await connection.call(
            destination: Self.busName, path: session, interface: "org.freedesktop.portal.Session", member: "Close", timeout: .milliseconds(500)
        )
    }
}
