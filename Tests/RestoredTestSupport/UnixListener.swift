#if canImport(Glibc)
import Glibc
#endif

/// A unix stream socket listening at a path, for tests that play the
/// server a client talks to: accepts one peer and writes to it as told.
public final class UnixListener {
    private let listener: Int32
    private var peer: Int32 = -1
    /// Where it listens.
    public let path: String

    /// Listens at `path` (which must not exist).
    public init(path: String) throws(Errno) {
        self.path = path
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw Errno(errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 4) == 0 else {
            let error = Errno(errno)
            close(listener)
            throw error
        }
    }

    deinit {
        if peer >= 0 { close(peer) }
        close(listener)
        unlink(path)
    }

    /// Accepts the peer that connected (blocks until one does). The
    /// accepted socket is close-on-exec: a child another test starts
    /// meanwhile must not keep it open after ``closePeer()``.
    public func accept() {
        peer = Glibc.accept(listener, nil, nil)
        // (accept4 is not in Swift's Glibc: the flag is set at once after.)
        if peer >= 0 { _ = fcntl(peer, F_SETFD, FD_CLOEXEC) }
    }

    /// Writes `bytes` to the accepted peer.
    public func send(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { write(peer, $0.baseAddress! + sent, $0.count - sent) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// Closes the accepted peer's connection.
    public func closePeer() {
        if peer >= 0 { close(peer) }
        peer = -1
    }

    /// An error number of the system.
    public struct Errno: Error, CustomStringConvertible {
        /// The number.
        public var code: Int32
        init(_ code: Int32) { self.code = code }
        /// What it means.
        public var description: String { String(cString: strerror(code)) }
    }
}
