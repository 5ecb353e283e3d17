/// Why bytes are no MessagePack value, and where.
public enum MessagePackError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes end inside a value: read again when more have arrived.
    case incomplete
    /// Values nest deeper than the reader follows.
    case tooDeep(limit: Int, offset: Int)
    /// A byte that starts no MessagePack value (0xC1, never used).
    case unknownMarker(UInt8, offset: Int)
    /// A length that does not fit this machine's integers.
    case lengthTooLarge(UInt64, offset: Int)

    /// One line: what is wrong, and where.
    public var description: String {
        switch self {
        case .incomplete: "the bytes end inside a value"
        case .tooDeep(let limit, let offset): "values nest deeper than \(limit) at byte \(offset)"
        case .unknownMarker(let marker, let offset): "byte 0x\(String(marker, radix: 16)) at \(offset) starts no MessagePack value"
        case .lengthTooLarge(let length, let offset): "a length of \(length) at byte \(offset)"
        }
    }
}
