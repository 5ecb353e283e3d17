public import SystemPackage
public import UnixSocket

/// A client of an app's line-based socket protocol (mpv's JSON IPC, many
/// editors' and players' control sockets): each request one line, each
/// answer one line, every send and read bounded by a deadline.
///
/// An app that also sends lines of its own between answers (mpv's events)
/// is read with ``request(_:before:answeredBy:)``, which skips the lines
/// that are not the answer. A line is at most ``maximumLineLength`` bytes;
/// a peer that sends more without a newline is an error, not a buffer
/// that grows.
public final class SocketRequestClient {
    /// The longest line read, newline excluded.
    public let maximumLineLength: Int
    private var socket: UnixStreamSocket

    /// Connects to the socket at `path`. Throws at once when nothing listens
    /// there (``UnixSocketError/cannotConnect(_:_:)``): connecting never
    /// waits.
    public init(connectingTo path: FilePath, maximumLineLength: Int = 1 << 20) throws(UnixSocketError) {
        self.maximumLineLength = maximumLineLength
        socket = try UnixStreamSocket(connectingTo: path, bufferLimit: maximumLineLength + 1)
    }

    /// Sends `line`, with a newline added, before `deadline`.
    public func send(_ line: String, before deadline: ContinuousClock.Instant) throws(UnixSocketError) {
        try socket.send(Array(line.utf8) + [0x0A], before: deadline)
    }

    /// The next line the peer sends, without its newline, waiting until
    /// `deadline` for it. Bytes that are not UTF-8 are replaced.
    public func receiveLine(before deadline: ContinuousClock.Instant) throws(UnixSocketError) -> String {
        while true {
            if let newline = socket.buffered.firstIndex(of: 0x0A) {
                let line = String(decoding: socket.buffered[..<newline], as: UTF8.self)
                socket.take(newline - socket.buffered.startIndex + 1)
                return line
            }
            try socket.receiveMore(before: deadline)
        }
    }

    /// Sends `line` and returns the first line that `isAnswer` accepts,
    /// all before `deadline`; the lines before it are dropped.
    public func request(
        _ line: String, before deadline: ContinuousClock.Instant, answeredBy isAnswer: (String) -> Bool = { _ in true }
    ) throws(UnixSocketError) -> String {
        try send(line, before: deadline)
        while true {
            let answer = try receiveLine(before: deadline)
            if isAnswer(answer) { return answer }
        }
    }
}
