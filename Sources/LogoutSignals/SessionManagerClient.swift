public import Logging
public import RestoredDBus

/// restored as a client of the desktop's session manager (gnome-session's
/// `org.gnome.SessionManager`), so logout waits until every app is saved.
///
/// After ``register()``, the session manager's requests arrive on the
/// client object (`org.gnome.SessionManager.ClientPrivate`): answer
/// `QueryEndSession` within a second and `EndSession` within ten, with
/// ``respond(ok:reason:)``; `CancelEndSession` needs no answer; `Stop` asks
/// the client to exit.
public actor SessionManagerClient {
    /// A request of the session manager.
    public enum Request: Sendable, Hashable {
        /// May the session end? Answer at once.
        case queryEndSession
        /// The session ends: save, then answer.
        case endSession
        /// The end of the session was called off.
        case cancelEndSession
        /// Exit now.
        case stop
    }

    /// The session manager's bus name.
    public static let busName = "org.gnome.SessionManager"
    /// Its object.
    public static let path = "/org/gnome/SessionManager"
    /// Its interface.
    public static let interface = "org.gnome.SessionManager"
    /// The interface of a registered client's object.
    public static let clientInterface = "org.gnome.SessionManager.ClientPrivate"

    private let connection: DBusConnection
    private let appID: String
    private let startupID: String
    private let logger: Logger
    private var clientPath: String?

    /// Creates a client; `startupID` is `DESKTOP_AUTOSTART_ID` when the
    /// session manager started restored, else empty.
    public init(connection: DBusConnection, appID: String = "restored", startupID: String, logger: Logger) {
        self.connection = connection
        self.appID = appID
        self.startupID = startupID
        self.logger = logger
    }

    /// Registers with the session manager and returns its requests, or nil
    /// when there is no session manager on the bus.
    public func register() async throws(DBusError) -> AsyncStream<Request>? {
        guard await connection.owner(of: Self.busName) != nil else { return nil }
        // Match before registering: a QueryEndSession sent right after the
        // reply must not be missed. Our object's path is known only then.
        let signals = try await connection.signals(matching: DBusMatchRule(sender: Self.busName, interface: Self.clientInterface))
        let reply = try await connection.call(
            destination: Self.busName, path: Self.path, interface: Self.interface, member: "RegisterClient",
            arguments: [.string(appID), .string(startupID)]
        )
        guard let path = reply.first?.stringValue else { throw DBusError.failed("RegisterClient returned no client path") }
        clientPath = path
        logger.info("registered with the session manager as \(path)")
        return AsyncStream { continuation in
            let task = Task {
                for await signal in signals where signal.path == path {
                    switch signal.member {
                    case "QueryEndSession": continuation.yield(.queryEndSession)
                    case "EndSession": continuation.yield(.endSession)
                    case "CancelEndSession": continuation.yield(.cancelEndSession)
                    case "Stop": continuation.yield(.stop)
                    default: break
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Answers `QueryEndSession` or `EndSession`.
    public func respond(ok: Bool = true, reason: String = "") async throws(DBusError) {
        guard let clientPath else { return }
        _ = try await connection.call(
            destination: Self.busName, path: clientPath, interface: Self.clientInterface, member: "EndSessionResponse",
            arguments: [.boolean(ok), .string(reason)], timeout: .seconds(1)
        )
    }
}
