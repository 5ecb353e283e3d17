import SystemSupport
/// One end of a helper's channel: whole frames in and out over a stream
/// socket, blocking, each bounded by a deadline.
///
/// Used from one thread at a time (restored: the app's queue; the helper:
/// its main thread). Reads check a frame's length against the limit before
/// allocating anything. With `exitDescriptor` (a pidfd), a wait also ends
/// when the process on the other end has exited, even if a descendant of it
/// still holds the socket open.
public struct FrameChannel: Sendable {
    /// One frame: its kind byte and the rest of the body.
    public struct Frame: Sendable {
        /// The first byte of the body, a ``HostFrameKind`` for a valid frame.
        public var kind: UInt8
        /// The body after the kind byte.
        public var body: [UInt8]

        /// A frame of `kind` with `body`.
        public init(kind: UInt8, body: [UInt8]) {
            self.kind = kind
            self.body = body
        }
    }

    /// The socket.
    public let descriptor: Int32
    /// A descriptor that becomes readable when the other end's process exits.
    public let exitDescriptor: Int32?

    /// Wraps an open stream socket; nothing is closed by this type.
    public init(descriptor: Int32, exitDescriptor: Int32? = nil) {
        self.descriptor = descriptor
        self.exitDescriptor = exitDescriptor
    }

    /// Sends one frame whose body is `body` then `blob`; `deadline` nil
    /// waits as long as it takes. Both are sent as they are, not copied
    /// into a frame first (the blob is an archive of a few hundred KB on the
    /// save path).
    public func send(_ kind: HostFrameKind, _ body: [UInt8], blob: [UInt8] = [], deadline: ContinuousClock.Instant? = nil) throws(HostProtocolError) {
        let length = UInt64(body.count) + UInt64(blob.count) + 1
        guard length <= UInt64(UInt32.max) else { throw .malformed("a frame of \(length) bytes, over the protocol's 4 GiB") }
        var header: [UInt8] = []
        withUnsafeBytes(of: UInt32(length).littleEndian) { header.append(contentsOf: $0) }
        header.append(kind.rawValue)
        try sendAll(header, deadline: deadline)
        try sendAll(body, deadline: deadline)
        if !blob.isEmpty { try sendAll(blob, deadline: deadline) }
    }

    private func sendAll(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) throws(HostProtocolError) {
        var sent = 0
        while sent < bytes.count {
            try wait(for: Int16(POLLOUT), deadline: deadline)
            let result = bytes.withUnsafeBytes { buffer in
                Glibc.send(descriptor, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if result < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == EPIPE || errno == ECONNRESET { throw .closed }
                throw .io(operation: "send", errno: errno)
            }
            sent += result
        }
    }

    /// Receives one frame whose body is at most `maximumLength` bytes.
    public func receive(maximumLength: Int, deadline: ContinuousClock.Instant? = nil) throws(HostProtocolError) -> Frame {
        var header = [UInt8](repeating: 0, count: 5)
        try read(into: &header, deadline: deadline, atFrameStart: true)
        let length = header.withUnsafeBytes { Int(UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self))) }
        guard length >= 1 else { throw .malformed("a frame of length 0") }
        guard length <= maximumLength else {
            throw .malformed("a frame of \(length) bytes, over the limit of \(maximumLength)")
        }
        // The kind came with the length; the rest is read straight into the body.
        var body = [UInt8](repeating: 0, count: length - 1)
        try read(into: &body, deadline: deadline, atFrameStart: false)
        return Frame(kind: header[4], body: body)
    }

    private func read(into buffer: inout [UInt8], deadline: ContinuousClock.Instant?, atFrameStart: Bool) throws(HostProtocolError) {
        var filled = 0
        while filled < buffer.count {
            try wait(for: Int16(POLLIN), deadline: deadline)
            let result = buffer.withUnsafeMutableBytes { bytes in
                recv(descriptor, bytes.baseAddress! + filled, bytes.count - filled, Int32(MSG_DONTWAIT))
            }
            if result < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == ECONNRESET { throw .closed }
                throw .io(operation: "recv", errno: errno)
            }
            if result == 0 {
                if atFrameStart && filled == 0 { throw .closed }
                throw .malformed("the channel closed in the middle of a frame")
            }
            filled += result
        }
    }

    /// Waits until the socket is ready for `events`, the other end's process
    /// exited (then reading what is buffered still works), or the deadline.
    private func wait(for events: Int16, deadline: ContinuousClock.Instant?) throws(HostProtocolError) {
        while true {
            var fds = [pollfd(fd: descriptor, events: events, revents: 0)]
            if let exitDescriptor { fds.append(pollfd(fd: exitDescriptor, events: Int16(POLLIN), revents: 0)) }
            let timeout: Int32
            if let deadline {
                let remaining = deadline - .now
                if remaining <= .zero { throw .timedOut }
                timeout = remaining.pollMilliseconds
            } else {
                timeout = -1
            }
            let result = poll(&fds, nfds_t(fds.count), timeout)
            if result < 0 {
                if errno == EINTR { continue }
                throw .io(operation: "poll", errno: errno)
            }
            if result == 0 { continue }
            if fds[0].revents != 0 { return }
            if fds.count > 1, fds[1].revents != 0 {
                // Exited: whatever it wrote is still buffered and readable.
                if events == Int16(POLLIN), Self.hasBufferedBytes(descriptor) { return }
                throw .closed
            }
        }
    }

    private static func hasBufferedBytes(_ descriptor: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }
}

#if canImport(Glibc)
import Glibc
#endif
