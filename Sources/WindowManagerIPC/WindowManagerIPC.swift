/// The IPC messages of i3 and sway (the same protocol): `i3-ipc`, the
/// payload's length and the message type (both 32-bit, in the machine's
/// byte order), then the JSON payload.
public enum WindowManagerIPC {
    /// The magic string every message starts with.
    static let magic = Array("i3-ipc".utf8)
    /// The size of a message's header.
    static let headerSize = 14
    /// The type of a `RUN_COMMAND` request and its reply.
    public static let runCommand: UInt32 = 0
    /// The type of a `SUBSCRIBE` request and its reply.
    public static let subscribe: UInt32 = 2
    /// The type of a `GET_OUTPUTS` request and its reply.
    public static let getOutputs: UInt32 = 3
    /// The type of a `GET_VERSION` request and its reply.
    public static let getVersion: UInt32 = 7
    /// The type of a `GET_TREE` request and its reply.
    public static let getTree: UInt32 = 4
    /// The type of the `shutdown` event (event 6, high bit set): i3 and sway
    /// send it when they exit (`change: exit`) or restart in place.
    public static let shutdownEvent: UInt32 = 0x8000_0006
    /// The largest payload read: a tree of hundreds of windows is a few
    /// hundred KiB of JSON.
    static let maximumPayload = 16 << 20

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

    /// The first whole message of `bytes` (what a socket received and no
    /// message has taken yet) and how many bytes it takes; nil while it has
    /// not all arrived. Bytes that do not start with the magic string, or a
    /// payload over 1 MiB, are a peer that does not speak this protocol.
    public static func firstMessage(in bytes: ArraySlice<UInt8>) throws(WindowManagerIPCError) -> (message: Message, length: Int)? {
        let start = bytes.startIndex
        guard bytes.prefix(magic.count).elementsEqual(magic.prefix(bytes.count)) else {
            throw .notTheProtocol
        }
        guard bytes.count >= headerSize else { return nil }
        let length = Int(value32(bytes, at: start + 6))
        guard length <= maximumPayload else { throw .notTheProtocol }
        guard bytes.count >= headerSize + length else { return nil }
        let type = value32(bytes, at: start + 10)
        return (Message(type: type, payload: Array(bytes[(start + headerSize) ..< (start + headerSize + length)])), headerSize + length)
    }

    private static func value32(_ bytes: ArraySlice<UInt8>, at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes[offset ..< offset + 4]) }
        return value
    }
}
