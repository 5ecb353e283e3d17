/// Why an exchange with a helper failed on the channel itself.
public enum HostProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The other end closed the channel (the helper exited or died).
    case closed
    /// The deadline passed before the frame was complete.
    case timedOut
    /// A frame that does not follow the protocol: what is wrong with it.
    case malformed(String)
    /// A system call on the channel failed.
    case io(operation: String, errno: Int32)

    /// One line.
    public var description: String {
        switch self {
        case .closed: "the channel was closed"
        case .timedOut: "the deadline passed"
        case .malformed(let what): "malformed data on the channel: \(what)"
        case .io(let operation, let errno): "\(operation) on the channel failed: \(String(cString: strerror(errno)))"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
