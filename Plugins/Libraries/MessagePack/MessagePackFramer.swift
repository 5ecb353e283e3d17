/// Finds where the first MessagePack value of a growing stream of bytes
/// ends, resuming where it stopped when more bytes arrive: a stream read in
/// many small pieces is scanned once, not once per piece, and only a
/// whole value is decoded (by ``MessagePackReader``).
///
/// It reads markers and lengths only: a string's or binary's bytes are
/// skipped, never looked at.
public struct MessagePackFramer: Sendable {
    /// Where the scan goes on: the first byte not yet accounted for.
    private var offset = 0
    /// How many values each open array or map (and the top level) still holds.
    private var open: [Int] = [1]

    /// A framer at the start of a value.
    public init() {}

    /// The length of the first value of `bytes` once all of it is there,
    /// or nil while it is not. `bytes` must be the bytes of the last call
    /// with more appended; after a length is returned, the framer starts
    /// again at the next value (drop that many bytes before the next call).
    /// A value announcing more than `limit` bytes, nesting deeper than
    /// ``MessagePackReader/maximumDepth`` or holding a byte no value starts
    /// with is thrown as soon as it is seen.
    public mutating func endOfFirstValue(in bytes: some RandomAccessCollection<UInt8>, limit: Int) throws(MessagePackError) -> Int? {
        let base = bytes.startIndex
        func byte(_ position: Int) -> UInt8 { bytes[bytes.index(base, offsetBy: position)] }
        func unsigned(at position: Int, size: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in 0 ..< size { value = value << 8 | UInt64(byte(position + index)) }
            return value
        }
        let count = bytes.count
        while offset < count {
            let marker = byte(offset)
            // After the marker: a length of `lengthSize` bytes, `header`
            // fixed bytes, then what the length counts (or nothing).
            var header = 0
            var lengthSize = 0
            var lengthCounts = Counted.bytes
            switch marker {
            case 0x00 ... 0x7F, 0xC0, 0xC2, 0xC3, 0xE0 ... 0xFF: break
            case 0x80 ... 0x8F: lengthCounts = .pairs
            case 0x90 ... 0x9F: lengthCounts = .values
            case 0xA0 ... 0xBF: break
            case 0xC4, 0xD9: lengthSize = 1
            case 0xC5, 0xDA: lengthSize = 2
            case 0xC6, 0xDB: lengthSize = 4
            case 0xC7: lengthSize = 1; header = 1
            case 0xC8: lengthSize = 2; header = 1
            case 0xC9: lengthSize = 4; header = 1
            case 0xCA: header = 4
            case 0xCB: header = 8
            case 0xCC, 0xD0: header = 1
            case 0xCD, 0xD1: header = 2
            case 0xCE, 0xD2: header = 4
            case 0xCF, 0xD3: header = 8
            case 0xD4: header = 2
            case 0xD5: header = 3
            case 0xD6: header = 5
            case 0xD7: header = 9
            case 0xD8: header = 17
            case 0xDC: lengthSize = 2; lengthCounts = .values
            case 0xDD: lengthSize = 4; lengthCounts = .values
            case 0xDE: lengthSize = 2; lengthCounts = .pairs
            case 0xDF: lengthSize = 4; lengthCounts = .pairs
            default: throw .unknownMarker(marker, offset: offset)
            }
            guard offset + 1 + lengthSize <= count else { return nil }
            var length = lengthSize == 0 ? 0 : unsigned(at: offset + 1, size: lengthSize)
            switch marker {
            case 0x80 ... 0x9F: length = UInt64(marker & 0x0F)
            case 0xA0 ... 0xBF: length = UInt64(marker & 0x1F)
            default: break
            }
            let children: Int
            var end = offset + 1 + lengthSize + header
            switch lengthCounts {
            case .bytes:
                guard length <= UInt64(limit) else { throw .lengthTooLarge(length, offset: offset) }
                end += Int(length)
                children = 0
            case .values, .pairs:
                // Each value takes a byte at least: a count over the limit cannot be met.
                guard length <= UInt64(limit) else { throw .lengthTooLarge(length, offset: offset) }
                children = Int(length) * (lengthCounts == .pairs ? 2 : 1)
            }
            guard end <= limit else { throw .lengthTooLarge(UInt64(end), offset: offset) }
            guard end <= count else { return nil }
            offset = end
            open[open.count - 1] -= 1
            if children > 0 {
                guard open.count < MessagePackReader.maximumDepth else {
                    throw .tooDeep(limit: MessagePackReader.maximumDepth, offset: offset)
                }
                open.append(children)
            }
            while open.last == 0 {
                open.removeLast()
                if open.isEmpty {
                    let length = offset
                    self = MessagePackFramer()
                    return length
                }
            }
        }
        return nil
    }

    /// What a length counts.
    private enum Counted { case bytes, values, pairs }
}
