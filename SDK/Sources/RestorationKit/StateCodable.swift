public import FoundationEssentials

/// A value type a ``StateCoder`` can store: Bool, integers, Double, String,
/// Data, Date, and arrays and string-keyed dictionaries of these (R16).
public protocol StateCodable {
    /// The value as a ``StateValue``.
    var stateValue: StateValue { get }
    /// Reads the value back; nil when `stateValue` holds another kind.
    init?(stateValue: StateValue)
}

extension Bool: StateCodable {
    /// `.bool`.
    public var stateValue: StateValue { .bool(self) }
    /// From `.bool`.
    public init?(stateValue: StateValue) {
        guard case .bool(let value) = stateValue else { return nil }
        self = value
    }
}

extension Int64: StateCodable {
    /// `.int64`.
    public var stateValue: StateValue { .int64(self) }
    /// From `.int64`, or `.uint64` when it fits.
    public init?(stateValue: StateValue) {
        switch stateValue {
        case .int64(let value): self = value
        case .uint64(let value): guard let value = Int64(exactly: value) else { return nil }; self = value
        default: return nil
        }
    }
}

extension Int: StateCodable {
    /// `.int64`.
    public var stateValue: StateValue { .int64(Int64(self)) }
    /// From `.int64` or `.uint64` when it fits.
    public init?(stateValue: StateValue) {
        guard let value = Int64(stateValue: stateValue), let exact = Int(exactly: value) else { return nil }
        self = exact
    }
}

extension UInt64: StateCodable {
    /// `.uint64`.
    public var stateValue: StateValue { .uint64(self) }
    /// From `.uint64`, or a non-negative `.int64`.
    public init?(stateValue: StateValue) {
        switch stateValue {
        case .uint64(let value): self = value
        case .int64(let value): guard let value = UInt64(exactly: value) else { return nil }; self = value
        default: return nil
        }
    }
}

extension Double: StateCodable {
    /// `.double`.
    public var stateValue: StateValue { .double(self) }
    /// From `.double`.
    public init?(stateValue: StateValue) {
        guard case .double(let value) = stateValue else { return nil }
        self = value
    }
}

extension String: StateCodable {
    /// `.string`.
    public var stateValue: StateValue { .string(self) }
    /// From `.string`.
    public init?(stateValue: StateValue) {
        guard case .string(let value) = stateValue else { return nil }
        self = value
    }
}

extension Data: StateCodable {
    /// `.bytes`.
    public var stateValue: StateValue { .bytes(self) }
    /// From `.bytes`.
    public init?(stateValue: StateValue) {
        guard case .bytes(let value) = stateValue else { return nil }
        self = value
    }
}

extension Date: StateCodable {
    /// `.date`.
    public var stateValue: StateValue { .date(self) }
    /// From `.date`.
    public init?(stateValue: StateValue) {
        guard case .date(let value) = stateValue else { return nil }
        self = value
    }
}

extension Array: StateCodable where Element: StateCodable {
    /// `.array`.
    public var stateValue: StateValue { .array(map { $0.stateValue }) }
    /// From `.array` whose every element converts.
    public init?(stateValue: StateValue) {
        guard case .array(let items) = stateValue else { return nil }
        var result: [Element] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard let element = Element(stateValue: item) else { return nil }
            result.append(element)
        }
        self = result
    }
}

extension Dictionary: StateCodable where Key == String, Value: StateCodable {
    /// `.dictionary`.
    public var stateValue: StateValue { .dictionary(mapValues { $0.stateValue }) }
    /// From `.dictionary` whose every value converts.
    public init?(stateValue: StateValue) {
        guard case .dictionary(let entries) = stateValue else { return nil }
        var result: [String: Value] = [:]
        for (key, item) in entries {
            guard let value = Value(stateValue: item) else { return nil }
            result[key] = value
        }
        self = result
    }
}
