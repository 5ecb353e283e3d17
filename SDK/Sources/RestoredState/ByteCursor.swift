/// A bounds-checked reader over container bytes.
///
/// Every read checks the remaining length and throws ``StateFormatError``
/// instead of trapping, so hostile input cannot crash the reader.
struct ByteCursor {
    let base: UnsafeRawBufferPointer
    var offset: Int
    let end: Int

    init(_ base: UnsafeRawBufferPointer, from start: Int = 0, to end: Int? = nil) {
        self.base = base
        self.offset = start
        self.end = end ?? base.count
    }

    var isAtEnd: Bool { offset >= end }

    mutating func readByte() throws(StateFormatError) -> UInt8 {
        guard offset < end else { throw StateFormatError("unexpected end of data", at: offset) }
        let byte = base[offset]
        offset &+= 1
        return byte
    }

    mutating func readVarint() throws(StateFormatError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let start = offset
            let byte = try readByte()
            if shift == 63 && byte > 1 {
                throw StateFormatError("varint overflows 64 bits", at: start)
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw StateFormatError("varint too long", at: start) }
        }
    }

    /// Reads a varint used as a length or count, bounded by the bytes left.
    mutating func readLength() throws(StateFormatError) -> Int {
        let start = offset
        let value = try readVarint()
        guard value <= UInt64(end - offset) else {
            throw StateFormatError("length \(value) goes past the end", at: start)
        }
        return Int(value)
    }

    mutating func readUInt32() throws(StateFormatError) -> UInt32 {
        guard end - offset >= 4 else { throw StateFormatError("unexpected end of data", at: offset) }
        let value = base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        offset &+= 4
        return UInt32(littleEndian: value)
    }

    mutating func readUInt64() throws(StateFormatError) -> UInt64 {
        guard end - offset >= 8 else { throw StateFormatError("unexpected end of data", at: offset) }
        let value = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset &+= 8
        return UInt64(littleEndian: value)
    }

    /// Reads `count` bytes and returns their range.
    mutating func readSlice(_ count: Int) throws(StateFormatError) -> Range<Int> {
        guard count >= 0, end - offset >= count else {
            throw StateFormatError("unexpected end of data", at: offset)
        }
        let range = offset..<(offset + count)
        offset += count
        return range
    }

    /// Reads a length-prefixed UTF-8 string's byte range, validating the UTF-8.
    mutating func readStringRange() throws(StateFormatError) -> Range<Int> {
        let start = offset
        let length = try readLength()
        let range = try readSlice(length)
        guard Self.isValidUTF8(UnsafeRawBufferPointer(rebasing: base[range])) else {
            throw StateFormatError("invalid UTF-8 in string", at: start)
        }
        return range
    }

    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // ASCII fast path, eight bytes at a time; anything else goes to the
        // standard library's validation.
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var offset = 0
        while offset + 8 <= count {
            if base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
                return String(validating: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self) != nil
            }
            offset += 8
        }
        while offset < count {
            if base.load(fromByteOffset: offset, as: UInt8.self) >= 0x80 {
                return String(validating: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self) != nil
            }
            offset += 1
        }
        return true
    }
}
