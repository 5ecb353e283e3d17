public import SystemPackage

/// Why a unix stream socket could not be used, with the system's cause.
public enum UnixSocketError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The path does not fit a socket address.
    case pathTooLong(FilePath)
    /// `socket(2)` failed.
    case cannotCreate(Errno)
    /// `connect(2)` failed: no listener (`ECONNREFUSED`), no file (`ENOENT`) ...
    case cannotConnect(FilePath, Errno)
    /// `send(2)` failed.
    case cannotSend(Errno)
    /// `recv(2)` failed.
    case cannotReceive(Errno)
    /// `poll(2)` failed.
    case cannotWait(Errno)
    /// The deadline passed before the peer answered or took what was sent.
    case timedOut
    /// The peer closed the connection before what was read had arrived.
    case closed
    /// The peer announced or sent more than the socket buffers unread.
    case tooLarge(limit: Int)
    /// The wait was stopped through its ``WakeSignal``.
    case interrupted

    /// One line.
    public var description: String {
        switch self {
        case .pathTooLong(let path): "\(path): the socket path is too long"
        case .cannotCreate(let errno): "cannot make a socket: \(errno)"
        case .cannotConnect(let path, let errno): "cannot connect to \(path): \(errno)"
        case .cannotSend(let errno): "cannot send: \(errno)"
        case .cannotReceive(let errno): "cannot receive: \(errno)"
        case .cannotWait(let errno): "cannot wait: \(errno)"
        case .timedOut: "no answer in time"
        case .closed: "the peer closed the connection"
        case .tooLarge(let limit): "the peer sent more than \(limit) bytes at once"
        case .interrupted: "the wait was stopped"
        }
    }
}
