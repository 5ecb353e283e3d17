
/// A typed value stored in a keyed container.
///
/// These are the only kinds of value an archive holds (R16): decoding never
/// instantiates a type named by archive data.
public enum StateValue: Hashable, Sendable {
    /// A Boolean.
    case bool(Bool)
    /// A signed 64-bit integer.
    case int64(Int64)
    /// An unsigned 64-bit integer.
    case uint64(UInt64)
    /// A 64-bit floating-point number.
    case double(Double)
    /// A UTF-8 string.
    case string(String)
    /// Raw bytes.
    case bytes([UInt8])
    /// A point in time, in seconds since 1970-01-01 00:00:00 UTC.
    case date(Double)
    /// An ordered list of values.
    case array([StateValue])
    /// Values under string keys, in the order they were encoded.
    case dictionary([StateEntry])
    /// A reference to another restorable object by its path.
    case reference(ObjectPath)

    /// The name of the value's kind, as shown to people (`int64`, `string` ...).
    public var kindName: String {
        switch self {
        case .bool: "bool"
        case .int64: "int64"
        case .uint64: "uint64"
        case .double: "double"
        case .string: "string"
        case .bytes: "bytes"
        case .date: "date"
        case .array: "array"
        case .dictionary: "dictionary"
        case .reference: "reference"
        }
    }
}

/// One key and its value in a keyed container or a dictionary value.
public struct StateEntry: Hashable, Sendable {
    /// The key.
    public var key: String
    /// The value.
    public var value: StateValue

    /// Creates an entry.
    public init(key: String, value: StateValue) {
        self.key = key
        self.value = value
    }
}
