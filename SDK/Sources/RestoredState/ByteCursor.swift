/// The problems a ``ByteCursor`` can find, as each byte format reports them.
///
/// The container format reports them as ``StateFormatError``, the archive
/// file format (RestoredArchive) as its own error cases: one reader, each
/// format's own words.
public protocol ByteCursorFailure: Error {
    /// `length` bytes were needed at `offset` but the data ends before.
    static func truncated(at offset: Int, length: UInt64) -> Self
    /// The varint at `offset` does not fit in 64 bits.
    static func varintOverflow(at offset: Int) -> Self
    /// The string whose length starts at `offset` is not well-formed UTF-8.
    static func invalidUTF8(at offset: Int) -> Self
}

/// The one bounds-checked reader of restored's byte formats: object state
/// containers and archive files.
///
/// Every read checks the remaining length and throws `Failure` instead of
/// trapping, so hostile input cannot crash the reader (R16). Nothing is
/// allocated; strings are validated in place.
@frozen
public struct ByteCursor<Failure: ByteCursorFailure> {
    /// The bytes read.
    public let base: UnsafeRawBufferPointer
    /// The offset of the next byte to read.
    public var offset: Int
    /// The offset one past the last byte this cursor may read.
    public let end: Int

    /// A cursor over `base[start..<end]` (all of `base` by default).
    @inlinable
    public init(_ base: UnsafeRawBufferPointer, from start: Int = 0, to end: Int? = nil) {
        self.base = base
        self.offset = start
        self.end = end ?? base.count
    }

    /// Whether every byte has been read.
    @inlinable
    public var isAtEnd: Bool { offset >= end }

    /// Reads one byte.
    @inlinable
    public mutating func readByte() throws(Failure) -> UInt8 {
        guard offset < end else { throw .truncated(at: offset, length: 1) }
        let byte = base[offset]
        offset &+= 1
        return byte
    }

    /// Reads an unsigned LEB128 varint of at most 64 bits.
    @inlinable
    public mutating func readVarint() throws(Failure) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw .truncated(at: start, length: UInt64(offset - start + 1)) }
            let byte = base[offset]
            offset &+= 1
            // At shift 63 only the lowest bit fits, and no continuation.
            if shift == 63 && byte > 1 { throw .varintOverflow(at: start) }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// Reads a varint used as a byte length, bounded by the bytes left.
    @inlinable
    public mutating func readLength() throws(Failure) -> Int {
        let start = offset
        let value = try readVarint()
        guard value <= UInt64(end - offset) else { throw .truncated(at: start, length: value) }
        return Int(value)
    }

    /// Reads a varint used as a count of elements each at least
    /// `minimumElementLength` bytes long, bounded by the bytes left.
    @inlinable
    public mutating func readCount(minimumElementLength: Int) throws(Failure) -> Int {
        let start = offset
        let value = try readVarint()
        guard value <= UInt64((end - offset) / max(minimumElementLength, 1)) else {
            throw .truncated(at: start, length: value)
        }
        return Int(value)
    }

    /// Reads a little-endian `UInt32`.
    @inlinable
    public mutating func readUInt32() throws(Failure) -> UInt32 {
        guard end - offset >= 4 else { throw .truncated(at: offset, length: 4) }
        let value = base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        offset &+= 4
        return UInt32(littleEndian: value)
    }

    /// Reads a little-endian `UInt64`.
    @inlinable
    public mutating func readUInt64() throws(Failure) -> UInt64 {
        guard end - offset >= 8 else { throw .truncated(at: offset, length: 8) }
        let value = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset &+= 8
        return UInt64(littleEndian: value)
    }

    /// Reads `count` bytes and returns their range in ``base``.
    @inlinable
    public mutating func readSlice(_ count: Int) throws(Failure) -> Range<Int> {
        guard count >= 0, end - offset >= count else {
            throw .truncated(at: offset, length: UInt64(max(count, 0)))
        }
        let range = offset..<(offset + count)
        offset += count
        return range
    }

    /// Reads a length-prefixed byte blob's range in ``base``.
    @inlinable
    public mutating func readBlobRange() throws(Failure) -> Range<Int> {
        try readSlice(try readLength())
    }

    /// Reads a length-prefixed UTF-8 string's range in ``base``, validating
    /// the UTF-8.
    @inlinable
    public mutating func readStringRange() throws(Failure) -> Range<Int> {
        let start = offset
        let range = try readSlice(try readLength())
        guard Self.isValidUTF8(UnsafeRawBufferPointer(rebasing: base[range])) else {
            throw .invalidUTF8(at: start)
        }
        return range
    }

    /// Reads a length-prefixed UTF-8 string.
    @inlinable
    public mutating func readString() throws(Failure) -> String {
        let range = try readStringRange()
        if range.isEmpty { return "" }
        // Validated above: nothing is repaired.
        return String(decoding: UnsafeRawBufferPointer(rebasing: base[range]), as: UTF8.self)
    }

    /// Whether `bytes` is well-formed UTF-8 (Unicode table 3-7: no overlong
    /// forms, no surrogates, nothing above U+10FFFF), checked in place by
    /// the standard library without allocating. Short ASCII strings (most
    /// keys) are answered before the library's setup, which costs more than
    /// they do.
    @inlinable
    public static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if bytes.count <= 16, !bytes.contains(where: { $0 >= 0x80 }) { return true }
        let utf8 = bytes.assumingMemoryBound(to: UInt8.self)
        return (try? UTF8Span(validating: utf8.span)) != nil
    }
}
