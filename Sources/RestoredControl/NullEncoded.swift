/// An optional that is always written to JSON: `null` when absent, never a
/// missing key, so every documented key of a `--json` shape is there.
@propertyWrapper
public struct NullEncoded<Value: Encodable & Hashable & Sendable>: Encodable, Hashable, Sendable {
    /// The value, or nil for `null`.
    public var wrappedValue: Value?

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    /// Writes the value, or `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encodeNil()
        }
    }
}
