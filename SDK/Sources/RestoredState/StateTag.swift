/// The one-byte tags of the container wire format.
///
/// Wire format of a keyed container (all integers little-endian):
/// `entry*` until the end of the blob, where
/// `entry = key value`, `key = varint(length) utf8`, and `value = tag payload`:
///
/// | tag | kind | payload |
/// | --- | --- | --- |
/// | 0x01 / 0x02 | bool false / true | none |
/// | 0x03 | int64 | zigzag LEB128 varint |
/// | 0x04 | uint64 | LEB128 varint |
/// | 0x05 | double | 8 bytes, IEEE 754 |
/// | 0x06 | string | varint length, UTF-8 |
/// | 0x07 | bytes | varint length, bytes |
/// | 0x08 | date | 8 bytes, IEEE 754 seconds since 1970 UTC |
/// | 0x09 | array | u32 byte length, varint count, values |
/// | 0x0A | dictionary | u32 byte length, varint count, (key value)* |
/// | 0x0B | reference | u32 byte length, varint count, (varint length, UTF-8, varint position+1 or 0)* |
/// | 0x0C | object handle | 8 bytes: a plugin's `restored_object *` |
///
/// Nested kinds carry their byte length so a reader can skip them without
/// parsing them, which keeps key lookups cheap. Object handles appear only in
/// entries a plugin hands to the host (`encode_entries`); the host replaces
/// them with references, and a reader refuses them anywhere else.
public enum StateTag: UInt8, Sendable {
    /// `false`.
    case boolFalse = 0x01
    /// `true`.
    case boolTrue = 0x02
    /// A signed integer.
    case int64 = 0x03
    /// An unsigned integer.
    case uint64 = 0x04
    /// A double.
    case double = 0x05
    /// A string.
    case string = 0x06
    /// Bytes.
    case bytes = 0x07
    /// A date.
    case date = 0x08
    /// An array.
    case array = 0x09
    /// A dictionary.
    case dictionary = 0x0A
    /// An object reference.
    case reference = 0x0B
    /// A plugin's object handle, only in entries handed to the host.
    case objectHandle = 0x0C

    /// The name of the kind of value it starts: the one table of kind names,
    /// used by ``StoredValue/kindName`` and the SDK's `StateValue.kindName`
    /// (`bool` for both Booleans); `handle` for a plugin's handle.
    public var kindName: String {
        switch self {
        case .boolFalse, .boolTrue: "bool"
        case .int64: "int64"
        case .uint64: "uint64"
        case .double: "double"
        case .string: "string"
        case .bytes: "bytes"
        case .date: "date"
        case .array: "array"
        case .dictionary: "dictionary"
        case .reference: "reference"
        case .objectHandle: "handle"
        }
    }

    /// The prefix of keys reserved for the system (R5).
    public static let reservedKeyPrefix = "restored."

    /// Whether a key (UTF-8) starts with ``reservedKeyPrefix``.
    public static func isReservedKey(_ key: UnsafeRawBufferPointer) -> Bool {
        let prefix: StaticString = "restored."
        guard key.count >= prefix.utf8CodeUnitCount, let base = key.baseAddress else { return false }
        return memcmp(base, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
