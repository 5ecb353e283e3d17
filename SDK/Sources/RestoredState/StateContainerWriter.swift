
/// Appends keyed entries to a container blob in the wire format of ``StateTag``.
///
/// The writer is append-only: a key written twice keeps both entries and the
/// reader returns the last one, as NSCoder does.
public struct StateContainerWriter: Sendable {
    /// The encoded bytes so far.
    public private(set) var bytes: [UInt8]

    /// Creates an empty container, reserving `capacity` bytes.
    public init(reservingCapacity capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The number of bytes written.
    public var count: Int { bytes.count }

    /// Encodes entries into a new container blob.
    public static func encode(_ entries: [StoredEntry]) -> [UInt8] {
        var writer = StateContainerWriter()
        for entry in entries {
            writer.appendKey(entry.key)
            writer.append(entry.value)
        }
        return writer.bytes
    }

    // MARK: Keys

    /// Appends a key given as UTF-8 bytes.
    public mutating func appendKey(_ utf8: UnsafeRawBufferPointer) {
        appendVarint(UInt64(utf8.count))
        appendContiguous(utf8)
    }

    /// Appends a key.
    public mutating func appendKey(_ key: String) {
        var key = key
        key.withUTF8 { appendKey(UnsafeRawBufferPointer($0)) }
    }

    // MARK: Scalars

    /// Appends a Boolean value.
    public mutating func appendBool(_ value: Bool) {
        bytes.append(value ? StateTag.boolTrue.rawValue : StateTag.boolFalse.rawValue)
    }

    /// Appends a signed integer value.
    public mutating func appendInt64(_ value: Int64) {
        bytes.append(StateTag.int64.rawValue)
        appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Appends an unsigned integer value.
    public mutating func appendUInt64(_ value: UInt64) {
        bytes.append(StateTag.uint64.rawValue)
        appendVarint(value)
    }

    /// Appends a double value.
    public mutating func appendDouble(_ value: Double) {
        bytes.append(StateTag.double.rawValue)
        appendFixed64(value.bitPattern)
    }

    /// Appends a date, in seconds since 1970 UTC.
    public mutating func appendDate(_ secondsSince1970: Double) {
        bytes.append(StateTag.date.rawValue)
        appendFixed64(secondsSince1970.bitPattern)
    }

    /// Appends a string value given as UTF-8 bytes (validated by the caller).
    public mutating func appendString(_ utf8: UnsafeRawBufferPointer) {
        bytes.append(StateTag.string.rawValue)
        appendVarint(UInt64(utf8.count))
        appendContiguous(utf8)
    }

    /// Appends a string value.
    public mutating func appendString(_ value: String) {
        var value = value
        value.withUTF8 { appendString(UnsafeRawBufferPointer($0)) }
    }

    /// Appends a bytes value.
    public mutating func appendBytes(_ value: UnsafeRawBufferPointer) {
        bytes.append(StateTag.bytes.rawValue)
        appendVarint(UInt64(value.count))
        appendContiguous(value)
    }

    // MARK: Nested values

    /// A nested value whose length is patched by ``endNested(_:)``.
    public struct NestedMark: Sendable {
        fileprivate let lengthOffset: Int
    }

    /// Starts an array (`.array`), dictionary (`.dictionary`) or reference
    /// (`.reference`) of `count` elements. Append exactly `count` values
    /// (dictionaries: key and value; references: ``appendPathComponent(_:position:)``),
    /// then call ``endNested(_:)``.
    public mutating func beginNested(_ tag: StateTag, count: Int) -> NestedMark {
        bytes.append(tag.rawValue)
        let mark = NestedMark(lengthOffset: bytes.count)
        bytes.append(contentsOf: [0, 0, 0, 0])
        appendVarint(UInt64(count))
        return mark
    }

    /// Finishes a nested value started with ``beginNested(_:count:)``.
    public mutating func endNested(_ mark: NestedMark) {
        let length = UInt32(truncatingIfNeeded: bytes.count - mark.lengthOffset - 4)
        bytes[mark.lengthOffset] = UInt8(truncatingIfNeeded: length)
        bytes[mark.lengthOffset + 1] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[mark.lengthOffset + 2] = UInt8(truncatingIfNeeded: length >> 16)
        bytes[mark.lengthOffset + 3] = UInt8(truncatingIfNeeded: length >> 24)
    }

    /// Appends one path component of a reference.
    public mutating func appendPathComponent(_ identifier: UnsafeRawBufferPointer, position: Int64?) {
        appendVarint(UInt64(identifier.count))
        appendContiguous(identifier)
        if let position, position >= 0 {
            appendVarint(UInt64(position) &+ 1)
        } else {
            appendVarint(0)
        }
    }

    /// Appends a reference to the object at `path`.
    public mutating func appendReference(_ path: ObjectPath) {
        let mark = beginNested(.reference, count: path.components.count)
        for component in path.components {
            var identifier = component.identifier
            identifier.withUTF8 { appendPathComponent(UnsafeRawBufferPointer($0), position: component.position) }
        }
        endNested(mark)
    }

    /// Appends a plugin's object handle (only in entries handed to the host).
    public mutating func appendObjectHandle(_ handle: UInt64) {
        bytes.append(StateTag.objectHandle.rawValue)
        appendFixed64(handle)
    }

    /// Appends any value.
    public mutating func append(_ value: StoredValue) {
        switch value {
        case .bool(let value): appendBool(value)
        case .int64(let value): appendInt64(value)
        case .uint64(let value): appendUInt64(value)
        case .double(let value): appendDouble(value)
        case .string(let value): appendString(value)
        case .bytes(let value): value.withUnsafeBytes { appendBytes($0) }
        case .date(let value): appendDate(value)
        case .array(let items):
            let mark = beginNested(.array, count: items.count)
            for item in items { append(item) }
            endNested(mark)
        case .dictionary(let entries):
            let mark = beginNested(.dictionary, count: entries.count)
            for entry in entries {
                appendKey(entry.key)
                append(entry.value)
            }
            endNested(mark)
        case .reference(let path): appendReference(path)
        }
    }

    // MARK: Primitives

    /// Appends bytes with one copy (a typed buffer takes the contiguous fast path).
    @inline(__always)
    mutating func appendContiguous(_ raw: UnsafeRawBufferPointer) {
        guard let base = raw.baseAddress, raw.count > 0 else { return }
        bytes.append(contentsOf: UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: raw.count))
    }

    @inline(__always)
    mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    @inline(__always)
    mutating func appendFixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}

extension StateContainerWriter {
    /// Appends bytes already in the wire format (checked by the caller).
    mutating func appendRaw(_ encoded: UnsafeRawBufferPointer) {
        appendContiguous(encoded)
    }

    /// Empties the container, keeping its capacity.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Drops everything after the first `count` bytes (undoes a failed append).
    public mutating func truncate(to count: Int) {
        bytes.removeSubrange(count...)
    }
}
