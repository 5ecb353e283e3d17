/// The IPC messages of i3 and sway (the same protocol): `i3-ipc`, the
/// payload's length and the message type (both 32-bit, in the machine's
/// byte order), then the JSON payload.
public enum WindowManagerIPC {
    /// The magic string every message starts with.
    static let magic = Array("i3-ipc".utf8)
    /// The size of a message's header.
    static let headerSize = 14
    /// The type of a `SUBSCRIBE` request and its reply.
    public static let subscribe: UInt32 = 2
    /// The type of the `shutdown` event (event 6, high bit set): i3 and sway
    /// send it when they exit (`change: exit`) or restart in place.
    public static let shutdownEvent: UInt32 = 0x8000_0006
    /// The largest payload read (replies and events are small JSON).
    static let maximumPayload = 1 << 20

    /// One message: its type and its payload.
    public struct Message: Hashable, Sendable {
        /// The message or event type.
        public var type: UInt32
        /// The JSON payload.
        public var payload: [UInt8]

        /// A message.
        public init(type: UInt32, payload: [UInt8]) {
            self.type = type
            self.payload = payload
        }

        /// The message as it goes on the socket.
        public var bytes: [UInt8] {
            var result = WindowManagerIPC.magic
            withUnsafeBytes(of: UInt32(payload.count)) { result += $0 }
            withUnsafeBytes(of: type) { result += $0 }
            return result + payload
        }
    }

    /// Takes bytes as they arrive and hands out whole messages.
    public struct Reader: Sendable {
        private var buffer: [UInt8] = []

        /// An empty reader.
        public init() {}

        /// Adds `bytes`; returns the messages they complete. Bytes that do
        /// not start with the magic string, or a payload over 1 MiB, are a
        /// peer that does not speak this protocol.
        public mutating func read(_ bytes: [UInt8]) throws(WindowManagerIPCError) -> [Message] {
            buffer += bytes
            var messages: [Message] = []
            while buffer.count >= WindowManagerIPC.headerSize {
                guard buffer.starts(with: WindowManagerIPC.magic) else { throw .notTheProtocol }
                let length = Int(Self.value32(buffer, at: 6))
                guard length <= WindowManagerIPC.maximumPayload else { throw .notTheProtocol }
                guard buffer.count >= WindowManagerIPC.headerSize + length else { break }
                let type = Self.value32(buffer, at: 10)
                messages.append(Message(type: type, payload: Array(buffer[WindowManagerIPC.headerSize ..< WindowManagerIPC.headerSize + length])))
                buffer.removeFirst(WindowManagerIPC.headerSize + length)
            }
            return messages
        }

        private static func value32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
            var value: UInt32 = 0
            withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes[offset ..< offset + 4]) }
            return value
        }
    }
}

/// Why the window manager's IPC could not be followed.
public enum WindowManagerIPCError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The peer sent bytes that are not i3/sway IPC.
    case notTheProtocol
    /// The subscription was refused.
    case subscriptionRefused(String)
    /// The socket could not be used.
    case socket(String)

    /// One line for the log.
    public var description: String {
        switch self {
        case .notTheProtocol: "the socket does not speak i3/sway IPC"
        case .subscriptionRefused(let reply): "the window manager refused the subscription (\(reply))"
        case .socket(let problem): problem
        }
    }
}
