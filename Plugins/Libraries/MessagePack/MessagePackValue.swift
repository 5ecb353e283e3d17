/// One MessagePack value (https://github.com/msgpack/msgpack/blob/master/spec.md),
/// as Neovim's RPC API sends and takes them.
///
/// Maps keep their pairs in the order they came: MessagePack allows any key
/// and duplicate keys, so no dictionary stands in for them.
public enum MessagePackValue: Hashable, Sendable {
    /// `nil`.
    case `nil`
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits `Int64`: every integer read is one, whichever
    /// family carried it.
    case int(Int64)
    /// An integer above `Int64.max`.
    case uint(UInt64)
    /// A float 32 or float 64, widened.
    case float(Double)
    /// A str: UTF-8 text.
    case string(String)
    /// A bin: bytes; also a str whose bytes are not UTF-8, as read.
    case binary([UInt8])
    /// An array.
    case array([MessagePackValue])
    /// A map, its pairs in order.
    case map([Pair])
    /// An ext: an application type and its bytes (Neovim's buffer, window
    /// and tabpage handles).
    case `extension`(type: Int8, data: [UInt8])

    /// One key and value of a map.
    public struct Pair: Hashable, Sendable {
        /// The key.
        public var key: MessagePackValue
        /// The value.
        public var value: MessagePackValue

        /// A pair.
        public init(_ key: MessagePackValue, _ value: MessagePackValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value as an `Int`, from either integer family or an ext whose
    /// bytes hold one (a Neovim handle); nil otherwise or when it does not fit.
    public var intValue: Int? {
        switch self {
        case .int(let value): return Int(exactly: value)
        case .uint(let value): return Int(exactly: value)
        case .extension(_, let data):
            var reader = MessagePackReader(data)
            guard let inner = try? reader.read(), reader.isAtEnd, inner.isInteger else { return nil }
            return inner.intValue
        default: return nil
        }
    }

    /// Whether it is an integer.
    public var isInteger: Bool {
        switch self {
        case .int, .uint: return true
        default: return false
        }
    }

    /// The text of a str; nil otherwise.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value of a bool; nil otherwise.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements of an array; nil otherwise.
    public var arrayValue: [MessagePackValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The value of the first pair whose key is the str `key`, in a map;
    /// nil when there is none or this is no map.
    public subscript(key: String) -> MessagePackValue? {
        guard case .map(let pairs) = self else { return nil }
        return pairs.first { $0.key == .string(key) }?.value
    }
}

extension MessagePackValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral {
    /// A str.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An int.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// An array.
    public init(arrayLiteral elements: MessagePackValue...) { self = .array(elements) }
    /// A bool.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// `nil`.
    public init(nilLiteral: ()) { self = .nil }
}
