/// A value of the D-Bus type system.
///
/// Arrays and dictionaries carry their element signatures, so an empty one
/// still has a type on the wire.
public indirect enum DBusValue: Sendable, Hashable {
    /// `y`
    case byte(UInt8)
    /// `b`
    case boolean(Bool)
    /// `n`
    case int16(Int16)
    /// `q`
    case uint16(UInt16)
    /// `i`
    case int32(Int32)
    /// `u`
    case uint32(UInt32)
    /// `x`
    case int64(Int64)
    /// `t`
    case uint64(UInt64)
    /// `d`
    case double(Double)
    /// `s`
    case string(String)
    /// `o`
    case objectPath(String)
    /// `g`
    case signature(String)
    /// `h`: a file descriptor, owned by the value's ``DBusFileDescriptor``.
    case unixFD(DBusFileDescriptor)
    /// `a` + element signature.
    case array(elementSignature: String, [DBusValue])
    /// `a{kv}`: entries in order.
    case dictionary(keySignature: String, valueSignature: String, [DBusDictionaryEntry])
    /// `(...)`
    case structure([DBusValue])
    /// `v`
    case variant(DBusValue)

    /// The value's D-Bus signature.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// An array of strings.
    public static func strings(_ values: [String]) -> DBusValue {
        .array(elementSignature: "s", values.map(DBusValue.string))
    }

    /// A string-keyed dictionary of variants (`a{sv}`), the usual property map.
    public static func properties(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dictionary(keySignature: "s", valueSignature: "v", entries.map { DBusDictionaryEntry(key: .string($0.0), value: .variant($0.1)) })
    }

    // MARK: Reading

    /// The string of `s`, `o` or `g`, or nil.
    public var stringValue: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): text
        case .variant(let inner): inner.stringValue
        default: nil
        }
    }

    /// The Boolean of `b`, or nil.
    public var boolValue: Bool? {
        switch self {
        case .boolean(let flag): flag
        case .variant(let inner): inner.boolValue
        default: nil
        }
    }

    /// Any unsigned or non-negative integer as UInt64, or nil.
    public var uint64Value: UInt64? {
        switch self {
        case .byte(let number): UInt64(number)
        case .uint16(let number): UInt64(number)
        case .uint32(let number): UInt64(number)
        case .uint64(let number): number
        case .int16(let number): UInt64(exactly: number)
        case .int32(let number): UInt64(exactly: number)
        case .int64(let number): UInt64(exactly: number)
        case .variant(let inner): inner.uint64Value
        default: nil
        }
    }

    /// Any integer that fits in Int64, or nil.
    public var int64Value: Int64? {
        switch self {
        case .int16(let number): Int64(number)
        case .int32(let number): Int64(number)
        case .int64(let number): number
        case .variant(let inner): inner.int64Value
        default: uint64Value.flatMap { Int64(exactly: $0) }
        }
    }

    /// The fields of a structure, or nil.
    public var structureValue: [DBusValue]? {
        switch self {
        case .structure(let fields): fields
        case .variant(let inner): inner.structureValue
        default: nil
        }
    }

    /// The elements of an array, or nil.
    public var arrayValue: [DBusValue]? {
        switch self {
        case .array(_, let items): items
        case .variant(let inner): inner.arrayValue
        default: nil
        }
    }

    /// The entries of a dictionary with string keys, or nil.
    public var stringKeyedValue: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = self.unwrapped else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.stringValue else { return nil }
            result[key] = entry.value.unwrapped
        }
        return result
    }

    /// The value inside any variants.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }
}

/// One entry of a ``DBusValue/dictionary(keySignature:valueSignature:_:)``.
public struct DBusDictionaryEntry: Sendable, Hashable {
    /// The key (a basic type).
    public var key: DBusValue
    /// The value.
    public var value: DBusValue

    /// Creates an entry.
    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}
