public import FoundationEssentials
import RestoredState

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

    /// The kind's name, for error messages: the wire format's one table of
    /// kind names (`int64`, `string`, `reference` ...).
    public var kindName: String {
        let tag: StateTag
        switch self {
        case .bool(let value): tag = value ? .boolTrue : .boolFalse
        case .int64: tag = .int64
        case .uint64: tag = .uint64
        case .double: tag = .double
        case .string: tag = .string
        case .bytes: tag = .bytes
        case .date: tag = .date
        case .array: tag = .array
        case .dictionary: tag = .dictionary
        case .object: tag = .reference
        }
        return tag.kindName
    }

    /// Whether it is, or holds, an object reference.
    var holdsObjectReference: Bool {
        switch self {
        case .object: true
        case .array(let items): items.contains { $0.holdsObjectReference }
        case .dictionary(let entries): entries.values.contains { $0.holdsObjectReference }
        default: false
        }
    }
}
