import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A unix stream socket at a path that takes every connection and closes
/// it at once, answering nothing, until it is stopped: what a server that
/// is ending looks like to its clients (tmux after `kill-server`, until
/// its process exits). Stopping leaves the socket file, as such a server
/// does, with nobody listening on it.
public final class ClosingUnixListener: Sendable {
    private let listener: Int32
    private let stopRequested = Atomic<Bool>(false)
    private let loopEnded = DispatchSemaphore(value: 0)
    /// Where it listens.
    public let path: String

    /// Listens at `path`, in place of a socket file there that nobody
    /// listens on (a server that ended leaves one).
    public init(path: String) throws(UnixListener.Errno) {
        self.path = path
        unlink(path)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard listener >= 0 else { throw UnixListener.Errno(errno) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path.utf8) }
        let listener = listener
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            let error = UnixListener.Errno(errno)
            close(listener)
            throw error
        }
        Thread.detachNewThread { [self] in
            while !stopRequested.load(ordering: .acquiring) {
                var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 20) > 0 else { continue }
                let peer = accept(listener, nil, nil)
                if peer >= 0 { close(peer) }
            }
            loopEnded.signal()
        }
    }

    /// Stops taking connections and closes the socket (its file stays).
    /// Waits for the thread that took them to end; calling it again does
    /// nothing.
    public func stop() {
        guard !stopRequested.exchange(true, ordering: .acquiringAndReleasing) else { return }
        loopEnded.wait()
        close(listener)
    }
}
