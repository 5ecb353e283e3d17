
/// A typed value as an archive stores it: what the host, the admin tools
/// and the host protocol read and write.
///
/// Plugin authors use RestorationKit's `StateValue` instead: the same kinds,
/// but with live objects where this holds a reference's path, and
/// Foundation's `Data` and `Date`. The two meet only in the wire format
/// (``StateContainerWriter``, ``StateContainerReader``), and both name their
/// kinds through ``StateTag/kindName``.
///
/// These are the only kinds of value an archive holds (R16): decoding never
/// instantiates a type named by archive data.
public enum StoredValue: Hashable, Sendable {
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
    case array([StoredValue])
    /// Values under string keys, in the order they were encoded.
    case dictionary([StoredEntry])
    /// A reference to another restorable object by its path.
    case reference(ObjectPath)

    /// The tag that starts the value in the container wire format.
    public var tag: StateTag {
        switch self {
        case .bool(let value): value ? .boolTrue : .boolFalse
        case .int64: .int64
        case .uint64: .uint64
        case .double: .double
        case .string: .string
        case .bytes: .bytes
        case .date: .date
        case .array: .array
        case .dictionary: .dictionary
        case .reference: .reference
        }
    }

    /// The name of the value's kind, as shown to people (`int64`, `string` ...):
    /// ``StateTag/kindName``, the one table of kind names.
    public var kindName: String { tag.kindName }
}

/// One key and its value in a keyed container or a dictionary value.
public struct StoredEntry: Hashable, Sendable {
    /// The key.
    public var key: String
    /// The value.
    public var value: StoredValue

    /// Creates an entry.
    public init(key: String, value: StoredValue) {
        self.key = key
        self.value = value
    }
}
