import RestoredEngine

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
    /// The other end speaks protocol `protocolVersion`, not this one's; it is
    /// restored `restoredVersion` when it said so. An upgrade replaced one
    /// end while the other runs (``HostProtocol``).
    case versionMismatch(protocolVersion: UInt64, restoredVersion: String?)

    /// One line.
    public var description: String {
        switch self {
        case .closed: "the channel was closed"
        case .timedOut: "the deadline passed"
        case .malformed(let what): "malformed data on the channel: \(what)"
        case .io(let operation, let errno): "\(operation) on the channel failed: \(String(cString: strerror(errno)))"
        case .versionMismatch(let version, let restored):
            "the other end speaks protocol version \(version)\(restored.map { " (restored \($0))" } ?? ""), this one \(HostProtocol.version) (restored \(RestoredVersion.string))"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
