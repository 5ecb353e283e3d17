// The AF_UNIX address NOTIFY_SOCKET names, and the one datagram sent to it.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The `AF_UNIX` datagram socket `NOTIFY_SOCKET` names: an absolute path, or
/// an abstract name written with a leading `@` (sd_notify(3)).
struct NotifySocketAddress: Sendable, Equatable {
    /// The bytes of `sun_path`; for an abstract name, a NUL then the name.
    let pathBytes: [UInt8]
    /// `NOTIFY_SOCKET` as given, for messages.
    let text: String

    /// Parses a `NOTIFY_SOCKET` value.
    init(_ text: String) throws(SystemdNotifierError) {
        var bytes = Array(text.utf8)
        guard !bytes.contains(0) else { throw .unsupportedAddress(text) }
        switch bytes.first {
        case UInt8(ascii: "/"):
            break
        case UInt8(ascii: "@") where bytes.count > 1:
            bytes[0] = 0
        default:
            throw .unsupportedAddress(text)
        }
        // A filesystem path needs its terminating NUL; an abstract name does not.
        let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)
        let needed = bytes.count + (bytes[0] == 0 ? 0 : 1)
        guard needed <= capacity else { throw .addressTooLong(text) }
        pathBytes = bytes
        self.text = text
    }

    /// Whether this is an abstract socket name rather than a filesystem path.
    var isAbstract: Bool { pathBytes.first == 0 }

    /// Calls `body` with this address as a `sockaddr` and its length.
    func withSocketAddress<Result>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
    ) -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            path.copyBytes(from: pathBytes)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        // Abstract names are exactly as long as given; paths include their NUL.
        let length = pathOffset + pathBytes.count + (isAbstract ? 0 : 1)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(length)) }
        }
    }

    /// Sends `message` as one datagram from a fresh socket, as sd_notify does,
    /// without ever waiting: a service manager that does not read its socket
    /// (whose queue is full) gets EAGAIN reported, never a hung daemon.
    func send(_ message: [UInt8]) throws(SystemdNotifierError) {
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .socketFailed(errno: errno) }
        defer { close(descriptor) }
        var failure: Int32 = 0
        repeat {
            let sent = message.withUnsafeBytes { bytes in
                withSocketAddress { address, length in
                    sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), address, length)
                }
            }
            failure = sent < 0 ? errno : 0
        } while failure == EINTR
        if failure != 0 { throw .sendFailed(address: text, errno: failure) }
    }
}
