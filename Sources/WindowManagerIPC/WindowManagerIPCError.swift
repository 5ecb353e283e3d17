public import UnixSocket

/// Why the window manager's IPC could not be followed.
public enum WindowManagerIPCError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The peer sent bytes that are not i3/sway IPC.
    case notTheProtocol
    /// The window manager closed the connection.
    case closed
    /// No message came before the deadline.
    case timedOut
    /// The subscription was refused.
    case subscriptionRefused(String)
    /// An answer that is not the JSON the protocol documents.
    case unreadableReply(String)
    /// A command the window manager refused, with its error.
    case commandFailed(String)
    /// The socket could not be used.
    case socket(UnixSocketError)

    /// One line for the log.
    public var description: String {
        switch self {
        case .notTheProtocol: "the socket does not speak i3/sway IPC"
        case .subscriptionRefused(let reply): "the window manager refused the subscription (\(reply))"
        case .unreadableReply(let what): "the window manager answered \(what)"
        case .commandFailed(let error): "the window manager refused a command: \(error)"
        case .closed: "the window manager closed its IPC socket"
        case .timedOut: "the window manager did not answer in time"
        case .socket(let error): "the window manager's IPC socket: \(error)"
        }
    }
}
