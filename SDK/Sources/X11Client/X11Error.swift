public import UnixSocket

/// Why the X server could not be used, with its cause: callers tell the
/// cases apart by their case. Each says in one line what happened.
public enum X11Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// The display's socket could not be reached.
    case unreachable(display: Int, UnixSocketError)
    /// Talking to the server failed, or it did not answer in time (`.timedOut`).
    case socket(UnixSocketError)
    /// The server refused the connection, with its reason (often authentication).
    case refused(String)
    /// The server's setup is too short, or names no screen.
    case malformedSetup(String)
    /// A reply shorter than it says it is.
    case shortReply(request: String)
    /// The server answered a request with an X error code.
    case requestFailed(opcode: UInt8, code: UInt8)
    /// The server announced more bytes than a client reads.
    case oversized(Int)
    /// The server closed the connection.
    case closed

    /// One line.
    public var description: String {
        switch self {
        case .unreachable(let display, let error): "cannot reach the X server of :\(display): \(error)"
        case .socket(let error): "the X server: \(error)"
        case .refused(let reason): "the X server refused the connection: \(reason)"
        case .malformedSetup(let what): "the X server's setup \(what)"
        case .shortReply(let request): "\(request): a reply cut short"
        case .requestFailed(let opcode, let code): "the X server answered request \(opcode) with error \(code)"
        case .oversized(let count): "the X server announced \(count) bytes"
        case .closed: "the X server closed the connection"
        }
    }
}
