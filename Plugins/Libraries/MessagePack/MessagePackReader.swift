/// Reads MessagePack values from bytes, one after another.
///
/// A value cut short is ``MessagePackError/incomplete`` (read again when
/// more bytes came); bytes no MessagePack value starts with, or nesting
/// deeper than ``maximumDepth``, are a ``MessagePackError``.
public struct MessagePackReader: Sendable {
    /// How deep arrays and maps may nest: a peer's bytes must not exhaust the stack.
    public static let maximumDepth = 512

    private let bytes: [UInt8]
    /// Where the next value starts.
    public private(set) var offset: Int

    /// A reader of `bytes`, from their start.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        offset = 0
    }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset == bytes.count }

    /// Reads the next value. On a throw, the reader is where it was.
    public mutating func read() throws(MessagePackError) -> MessagePackValue {
        let start = offset
        do {
            return try readValue(depth: 0)
        } catch {
            offset = start
            throw error
        }
    }

    private mutating func readValue(depth: Int) throws(MessagePackError) -> MessagePackValue {
        guard depth < Self.maximumDepth else { throw .tooDeep(limit: Self.maximumDepth, offset: offset) }
        let marker = try take(1)[0]
        switch marker {
        case 0x00 ... 0x7F: return .int(Int64(marker))
        case 0x80 ... 0x8F: return try readMap(count: Int(marker & 0x0F), depth: depth)
        case 0x90 ... 0x9F: return try readArray(count: Int(marker & 0x0F), depth: depth)
        case 0xA0 ... 0xBF: return try readString(count: Int(marker & 0x1F))
        case 0xC0: return .nil
        case 0xC2: return .bool(false)
        case 0xC3: return .bool(true)
        case 0xC4: return .binary(try take(readLength(1)))
        case 0xC5: return .binary(try take(readLength(2)))
        case 0xC6: return .binary(try take(readLength(4)))
        case 0xC7: return try readExtension(count: readLength(1))
        case 0xC8: return try readExtension(count: readLength(2))
        case 0xC9: return try readExtension(count: readLength(4))
        case 0xCA: return .float(Double(Float(bitPattern: UInt32(try readUnsigned(4)))))
        case 0xCB: return .float(Double(bitPattern: try readUnsigned(8)))
        case 0xCC: return .int(Int64(try readUnsigned(1)))
        case 0xCD: return .int(Int64(try readUnsigned(2)))
        case 0xCE: return .int(Int64(try readUnsigned(4)))
        case 0xCF:
            let value = try readUnsigned(8)
            return Int64(exactly: value).map(MessagePackValue.int) ?? .uint(value)
        case 0xD0: return .int(Int64(Int8(truncatingIfNeeded: try readUnsigned(1))))
        case 0xD1: return .int(Int64(Int16(truncatingIfNeeded: try readUnsigned(2))))
        case 0xD2: return .int(Int64(Int32(truncatingIfNeeded: try readUnsigned(4))))
        case 0xD3: return .int(Int64(bitPattern: try readUnsigned(8)))
        case 0xD4: return try readExtension(count: 1)
        case 0xD5: return try readExtension(count: 2)
        case 0xD6: return try readExtension(count: 4)
        case 0xD7: return try readExtension(count: 8)
        case 0xD8: return try readExtension(count: 16)
        case 0xD9: return try readString(count: readLength(1))
        case 0xDA: return try readString(count: readLength(2))
        case 0xDB: return try readString(count: readLength(4))
        case 0xDC: return try readArray(count: readLength(2), depth: depth)
        case 0xDD: return try readArray(count: readLength(4), depth: depth)
        case 0xDE: return try readMap(count: readLength(2), depth: depth)
        case 0xDF: return try readMap(count: readLength(4), depth: depth)
        case 0xE0 ... 0xFF: return .int(Int64(Int8(bitPattern: marker)))
        default: throw .unknownMarker(marker, offset: offset - 1)
        }
    }

    private mutating func take(_ count: Int) throws(MessagePackError) -> [UInt8] {
        guard count <= bytes.count - offset else { throw .incomplete }
        defer { offset += count }
        return Array(bytes[offset ..< offset + count])
    }

    private mutating func readUnsigned(_ count: Int) throws(MessagePackError) -> UInt64 {
        try take(count).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A length of `count` bytes.
    private mutating func readLength(_ count: Int) throws(MessagePackError) -> Int {
        let value = try readUnsigned(count)
        guard let length = Int(exactly: value) else { throw .lengthTooLarge(value, offset: offset - count) }
        return length
    }

    /// A str; one whose bytes are not UTF-8 reads as `.binary`, so that no
    /// repaired text stands for bytes it does not hold.
    private mutating func readString(count: Int) throws(MessagePackError) -> MessagePackValue {
        let bytes = try take(count)
        return String(validating: bytes, as: UTF8.self).map(MessagePackValue.string) ?? .binary(bytes)
    }

    private mutating func readExtension(count: Int) throws(MessagePackError) -> MessagePackValue {
        let type = Int8(bitPattern: try take(1)[0])
        return .extension(type: type, data: try take(count))
    }

    private mutating func readArray(count: Int, depth: Int) throws(MessagePackError) -> MessagePackValue {
        // Every element takes a byte at least: a count beyond the bytes left waits for more.
        guard count <= bytes.count - offset else { throw .incomplete }
        var elements: [MessagePackValue] = []
        elements.reserveCapacity(count)
        for _ in 0 ..< count { elements.append(try readValue(depth: depth + 1)) }
        return .array(elements)
    }

    private mutating func readMap(count: Int, depth: Int) throws(MessagePackError) -> MessagePackValue {
        guard count <= (bytes.count - offset) / 2 else { throw .incomplete }
        var pairs: [MessagePackValue.Pair] = []
        pairs.reserveCapacity(count)
        for _ in 0 ..< count {
            let key = try readValue(depth: depth + 1)
            pairs.append(MessagePackValue.Pair(key, try readValue(depth: depth + 1)))
        }
        return .map(pairs)
    }
}
