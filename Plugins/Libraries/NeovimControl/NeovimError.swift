public import MessagePack
public import UnixSocket

/// Why a Neovim could not be read or replayed into, with its cause: callers
/// tell the cases apart by their case. Each says in one line what happened.
public indirect enum NeovimError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The socket could not be used, or the deadline passed (`.timedOut`).
    case socket(UnixSocketError)
    /// Neovim closed the connection.
    case closed
    /// The peer sent bytes that are no MessagePack (it is no Neovim).
    case notMessagePack(MessagePackError)
    /// The peer announced a message larger than a client buffers.
    case messageTooLarge(limit: Int)
    /// An answer that breaks msgpack-rpc (wrong shape, unknown request).
    case protocolViolation(method: String, String)
    /// Neovim answered the call with an error (the connection stays good).
    case answered(method: String, message: String)
    /// A call failed earlier on this connection, which was given up after it.
    case connectionGivenUp(NeovimError)
    /// Neovim waits for its user's answer at a prompt.
    case waitsForUser
    /// Neovim stopped at a file to tell its user about a swap file.
    case swapFilePrompt(file: String)
    /// An answer whose shape is not the one the API documents.
    case unexpectedShape(String)

    /// One line.
    public var description: String {
        switch self {
        case .socket(let error): error.description
        case .closed: "Neovim closed the connection"
        case .notMessagePack(let error): "Neovim sent bytes that are no MessagePack: \(error)"
        case .messageTooLarge(let limit): "Neovim sent a message of more than \(limit) bytes"
        case .protocolViolation(let method, let detail): "\(method): \(detail)"
        case .answered(let method, let message): "\(method): \(message)"
        case .connectionGivenUp(let cause): "\(cause) (the connection is given up after it)"
        case .waitsForUser: "Neovim waits for its user's answer at a prompt; its state cannot be read now"
        case .swapFilePrompt(let file):
            "Neovim stopped at \(file) to tell its user about a swap file (changes never written, or another Neovim editing it); the windows after it were not replayed"
        case .unexpectedShape(let what): what
        }
    }
}
