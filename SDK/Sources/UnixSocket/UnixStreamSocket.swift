import Glibc
public import SystemPackage
public import SystemSupport

/// A connected `AF_UNIX` stream socket with deadlines and a read buffer:
/// every system call of the clients of local servers (Neovim, the X
/// server, i3 and sway) goes through here. It never blocks: a listener
/// whose queue is full refuses at once (`EAGAIN`), and sends and receives
/// wait in `poll` until their deadline.
///
/// Framed protocols read through the buffer: ``read(exactly:before:)``
/// for a known length, or ``receiveMore(before:)`` and ``buffered`` for a
/// frame whose length is learnt as its bytes arrive. Taking bytes from the
/// buffer never moves the rest until half of it is taken, so reading a
/// stream costs time in proportion to its length.
public struct UnixStreamSocket: ~Copyable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    /// The most bytes held unread: a peer that announces or sends more
    /// without a frame ending is an error (``UnixSocketError/tooLarge(limit:)``), not buffered.
    public let bufferLimit: Int

    /// Connects to the socket at `path`, buffering at most `bufferLimit` unread bytes.
    public init(connectingTo path: FilePath, bufferLimit: Int = 16 << 20) throws(UnixSocketError) {
        let text = path.string
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard text.utf8.count < capacity else { throw .pathTooLong(path) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: text.utf8) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw .cannotCreate(Errno(rawValue: errno)) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let error = Errno(rawValue: errno)
            close(descriptor)
            throw .cannotConnect(path, error)
        }
        self.descriptor = descriptor
        self.bufferLimit = bufferLimit
    }

    deinit { close(descriptor) }

    /// Sends all of `bytes` before `deadline`.
    public func send(_ bytes: [UInt8], before deadline: ContinuousClock.Instant) throws(UnixSocketError) {
        var sent = 0
        while sent < bytes.count {
            try wait(for: Int16(POLLOUT), before: deadline)
            let count = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .cannotSend(Errno(rawValue: errno))
            }
            sent += count
        }
    }

    /// The bytes that came next, waiting until `deadline` for some; empty
    /// when the peer closed the connection.
    private func receive(before deadline: ContinuousClock.Instant, interruptedBy wake: WakeSignal?) throws(UnixSocketError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            try wait(for: Int16(POLLIN), before: deadline, interruptedBy: wake)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw .cannotReceive(Errno(rawValue: errno))
            }
            return Array(buffer[..<count])
        }
    }

    /// The bytes received and not yet taken.
    public var buffered: ArraySlice<UInt8> { buffer[start...] }

    /// Receives what came next into ``buffered``, waiting until `deadline`
    /// for some. Throws ``UnixSocketError/closed`` when the peer closed the
    /// connection, ``UnixSocketError/tooLarge(limit:)`` when the buffer
    /// holds ``bufferLimit`` bytes already, and
    /// ``UnixSocketError/interrupted`` as soon as `wake` is signalled.
    public mutating func receiveMore(before deadline: ContinuousClock.Instant, interruptedBy wake: WakeSignal? = nil) throws(UnixSocketError) {
        guard buffer.count - start < bufferLimit else { throw .tooLarge(limit: bufferLimit) }
        let more = try receive(before: deadline, interruptedBy: wake)
        guard !more.isEmpty else { throw .closed }
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer += more
    }

    /// Takes the first `count` bytes of ``buffered`` (all of them at most).
    public mutating func take(_ count: Int) {
        start = min(start + count, buffer.count)
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        }
    }

    /// The next `count` bytes, receiving until `deadline` as long as they
    /// have not all arrived. A `count` over ``bufferLimit`` is
    /// ``UnixSocketError/tooLarge(limit:)`` at once.
    public mutating func read(exactly count: Int, before deadline: ContinuousClock.Instant) throws(UnixSocketError) -> [UInt8] {
        guard count <= bufferLimit else { throw .tooLarge(limit: bufferLimit) }
        while buffer.count - start < count { try receiveMore(before: deadline) }
        let bytes = Array(buffer[start ..< start + count])
        take(count)
        return bytes
    }

    /// Waits, without a deadline, until the peer closes the connection
    /// (true; a failing socket counts as closed) or `wake` is signalled
    /// (false). What the peer sends meanwhile is dropped: a held
    /// connection to a display, whose end is all that is asked of it.
    public mutating func waitUntilClosed(interruptedBy wake: WakeSignal) -> Bool {
        while true {
            do throws(UnixSocketError) {
                try receiveMore(before: .now + Self.forever, interruptedBy: wake)
                take(buffered.count)
            } catch .interrupted {
                return false
            } catch .timedOut {
                continue
            } catch {
                return true
            }
        }
    }

    /// A wait with no deadline: poll's longest timeout is about 24 days.
    static let forever = Duration.seconds(365 * 86_400)

    private func wait(for events: Int16, before deadline: ContinuousClock.Instant, interruptedBy wake: WakeSignal? = nil) throws(UnixSocketError) {
        while true {
            if wake?.isSignalled == true { throw .interrupted }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { throw .timedOut }
            var entries = [pollfd(fd: descriptor, events: events, revents: 0)]
            if let wake, wake.descriptor >= 0 { entries.append(pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0)) }
            // A wake signal without a descriptor is looked at every second.
            let timeout = wake.map { $0.descriptor < 0 } == true ? min(left.pollMilliseconds, 1000) : left.pollMilliseconds
            let ready = poll(&entries, nfds_t(entries.count), timeout)
            if ready > 0 {
                if entries.count > 1 && entries[1].revents != 0 { throw .interrupted }
                return
            }
            if ready < 0 && errno != EINTR { throw .cannotWait(Errno(rawValue: errno)) }
        }
    }
}
