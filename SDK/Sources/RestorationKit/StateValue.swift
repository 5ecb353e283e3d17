public import FoundationEssentials

/// A value a ``StateCoder`` stores: the only kinds an archive holds (R16).
public enum StateValue {
    /// A Boolean.
    case bool(Bool)
    /// A signed integer.
    case int64(Int64)
    /// An unsigned integer.
    case uint64(UInt64)
    /// A double.
    case double(Double)
    /// A string.
    case string(String)
    /// Raw bytes.
    case bytes(Data)
    /// A point in time.
    case date(Date)
    /// A list.
    case array([StateValue])
    /// Values under string keys.
    case dictionary([String: StateValue])
    /// A reference to another restorable object by its path; when decoding,
    /// nil if that object was not restored.
    case object((any RestorableObject)?)

    /// The kind's name, for error messages.
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
        case .object: "object reference"
        }
    }
}
