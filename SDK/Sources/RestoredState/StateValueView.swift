
/// A value inside container bytes, read without copying.
///
/// Views borrow the bytes they were read from: use them only while those
/// bytes are alive. Strings inside a view were validated as UTF-8 when the
/// view was read; nested values are checked as they are read.
public struct StateValueView {
    /// The value's kind.
    public let tag: StateTag
    /// The bytes the view reads from.
    public let base: UnsafeRawBufferPointer
    /// The payload's range in `base` (after the tag; for nested kinds, after the length).
    public let payload: Range<Int>

    /// The Boolean, for `boolFalse` / `boolTrue`.
    public var boolValue: Bool { tag == .boolTrue }

    /// The signed integer, for `int64`.
    public var int64Value: Int64 {
        var cursor = ByteCursor<StateFormatError>(base, from: payload.lowerBound, to: payload.upperBound)
        let raw = (try? cursor.readVarint()) ?? 0
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// The unsigned integer, for `uint64`.
    public var uint64Value: UInt64 {
        var cursor = ByteCursor<StateFormatError>(base, from: payload.lowerBound, to: payload.upperBound)
        return (try? cursor.readVarint()) ?? 0
    }

    /// The double, for `double` and `date`.
    public var doubleValue: Double {
        var cursor = ByteCursor<StateFormatError>(base, from: payload.lowerBound, to: payload.upperBound)
        return Double(bitPattern: (try? cursor.readUInt64()) ?? 0)
    }

    /// The UTF-8 bytes of a `string` or the bytes of `bytes`.
    public var bytesValue: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: base[payload])
    }

    /// The string, for `string`.
    public var stringValue: String {
        String(decoding: bytesValue, as: UTF8.self)
    }

    /// The elements of an `array`.
    public func arrayElements() throws(StateFormatError) -> [StateValueView] {
        var cursor = ByteCursor<StateFormatError>(base, from: payload.lowerBound, to: payload.upperBound)
        let count = try Self.readCount(&cursor)
        var items: [StateValueView] = []
        items.reserveCapacity(count)
        for _ in 0..<count { items.append(try Self.read(&cursor)) }
        try Self.expectEnd(cursor)
        return items
    }

    /// The entries of a `dictionary`: key bytes (valid UTF-8) and values.
    public func dictionaryEntries() throws(StateFormatError) -> [(key: UnsafeRawBufferPointer, value: StateValueView)] {
        var cursor = ByteCursor<StateFormatError>(base, from: payload.lowerBound, to: payload.upperBound)
        let count = try Self.readCount(&cursor)
        var entries: [(key: UnsafeRawBufferPointer, value: StateValueView)] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let key = try cursor.readStringRange()
            entries.append((UnsafeRawBufferPointer(rebasing: base[key]), try Self.read(&cursor)))
        }
        try Self.expectEnd(cursor)
        return entries
    }

    /// The path components of a `reference`: identifier bytes (valid UTF-8) and position.
    public func referenceComponents() throws(StateFormatError) -> [(identifier: UnsafeRawBufferPointer, position: Int64?)] {
        var cursor = ByteCursor<StateFormatError>(base, from: payload.lowerBound, to: payload.upperBound)
        let count = try Self.readCount(&cursor)
        var components: [(identifier: UnsafeRawBufferPointer, position: Int64?)] = []
        components.reserveCapacity(count)
        for _ in 0..<count {
            let identifier = try cursor.readStringRange()
            let start = cursor.offset
            let position = try cursor.readVarint()
            guard position <= UInt64(Int64.max) else {
                throw StateFormatError("path position out of range", at: start)
            }
            components.append((UnsafeRawBufferPointer(rebasing: base[identifier]), position == 0 ? nil : Int64(position - 1)))
        }
        try Self.expectEnd(cursor)
        return components
    }

    /// The path of a `reference`.
    public func referencePath() throws(StateFormatError) -> ObjectPath {
        ObjectPath(try referenceComponents().map {
            ObjectPath.Component(identifier: String(decoding: $0.identifier, as: UTF8.self), position: $0.position)
        })
    }

    /// The deepest nesting of arrays and dictionaries a reader accepts, so
    /// hostile bytes cannot exhaust the stack (R16).
    public static let maximumDepth = 64

    /// The whole value, decoded and validated recursively.
    public func decoded() throws(StateFormatError) -> StoredValue {
        try decoded(depth: 0)
    }

    private func decoded(depth: Int) throws(StateFormatError) -> StoredValue {
        guard depth < Self.maximumDepth else {
            throw StateFormatError("values nested deeper than \(Self.maximumDepth) levels", at: payload.lowerBound)
        }
        switch tag {
        case .boolFalse: return .bool(false)
        case .boolTrue: return .bool(true)
        case .int64: return .int64(int64Value)
        case .uint64: return .uint64(uint64Value)
        case .double: return .double(doubleValue)
        case .date: return .date(doubleValue)
        case .string: return .string(stringValue)
        case .bytes: return .bytes(Array(bytesValue))
        case .array:
            var items: [StoredValue] = []
            for item in try arrayElements() { items.append(try item.decoded(depth: depth + 1)) }
            return .array(items)
        case .dictionary:
            var entries: [StoredEntry] = []
            for entry in try dictionaryEntries() {
                entries.append(StoredEntry(key: String(decoding: entry.key, as: UTF8.self), value: try entry.value.decoded(depth: depth + 1)))
            }
            return .dictionary(entries)
        case .reference:
            return .reference(try referencePath())
        case .objectHandle:
            throw StateFormatError("an object handle outside a plugin's entries", at: payload.lowerBound)
        }
    }

    /// Checks nested values down to the bottom without building them (R16).
    public func validate() throws(StateFormatError) {
        try validate(depth: 0)
    }

    private func validate(depth: Int) throws(StateFormatError) {
        guard depth < Self.maximumDepth else {
            throw StateFormatError("values nested deeper than \(Self.maximumDepth) levels", at: payload.lowerBound)
        }
        switch tag {
        case .array, .dictionary:
            var cursor = ByteCursor<StateFormatError>(base, from: payload.lowerBound, to: payload.upperBound)
            let count = try Self.readCount(&cursor)
            for _ in 0..<count {
                if tag == .dictionary { _ = try cursor.readStringRange() }
                try Self.read(&cursor).validate(depth: depth + 1)
            }
            try Self.expectEnd(cursor)
        case .reference:
            _ = try referenceComponents()
        default:
            break  // Scalars, strings and bytes were checked when read.
        }
    }

    // MARK: Reading

    /// Reads one value (tag and payload) at the cursor and moves past it.
    static func read(_ cursor: inout ByteCursor<StateFormatError>) throws(StateFormatError) -> StateValueView {
        let tagOffset = cursor.offset
        let rawTag = try cursor.readByte()
        guard let tag = StateTag(rawValue: rawTag) else {
            throw StateFormatError("unknown value tag 0x\(String(rawTag, radix: 16))", at: tagOffset)
        }
        let start = cursor.offset
        switch tag {
        case .boolFalse, .boolTrue:
            break
        case .int64, .uint64:
            _ = try cursor.readVarint()
        case .double, .date:
            _ = try cursor.readUInt64()
        case .string:
            let range = try cursor.readStringRange()
            return StateValueView(tag: tag, base: cursor.base, payload: range)
        case .bytes:
            let range = try cursor.readBlobRange()
            return StateValueView(tag: tag, base: cursor.base, payload: range)
        case .array, .dictionary, .reference:
            let length = try cursor.readUInt32()
            let range = try cursor.readSlice(Int(length))
            return StateValueView(tag: tag, base: cursor.base, payload: range)
        case .objectHandle:
            throw StateFormatError("an object handle outside a plugin's entries", at: tagOffset)
        }
        return StateValueView(tag: tag, base: cursor.base, payload: start..<cursor.offset)
    }

    /// A count of elements, each at least one byte: a larger count is a lie.
    private static func readCount(_ cursor: inout ByteCursor<StateFormatError>) throws(StateFormatError) -> Int {
        try cursor.readCount(minimumElementLength: 1)
    }

    private static func expectEnd(_ cursor: ByteCursor<StateFormatError>) throws(StateFormatError) {
        guard cursor.isAtEnd else {
            throw StateFormatError("trailing bytes after the last element", at: cursor.offset)
        }
    }
}
