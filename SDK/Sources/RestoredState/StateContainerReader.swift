/// Looks up keys in a container blob written by ``StateContainerWriter``.
///
/// The entries are indexed once per container (when the reader is created,
/// or by ``index(_:)`` for the next one); a key written twice yields its
/// last value. Lookups compare raw UTF-8 bytes and never create strings.
public struct StateContainerReader {
    /// One entry: the key's byte range and its value.
    public struct Entry {
        /// The key's range in the container bytes.
        public let key: Range<Int>
        /// The value.
        public let value: StateValueView
    }

    /// The container bytes.
    public private(set) var base: UnsafeRawBufferPointer
    /// The entries in the order they were written.
    public private(set) var entries: [Entry]

    /// An empty reader, to ``index(_:)`` containers with later.
    public init() {
        base = UnsafeRawBufferPointer(start: nil, count: 0)
        entries = []
        entries.reserveCapacity(16)
    }

    /// Indexes the container in `bytes`, which must stay valid while the
    /// reader reads it (until it is indexed again or cleared).
    public init(_ bytes: UnsafeRawBufferPointer) throws(StateFormatError) {
        self.init()
        try index(bytes)
    }

    /// Indexes another container in `bytes`, which must stay valid until the
    /// next ``index(_:)`` or ``clear()``, keeping the memory of the entries:
    /// a reader that serves one callback after another allocates once. When
    /// it throws, the reader is empty.
    public mutating func index(_ bytes: UnsafeRawBufferPointer) throws(StateFormatError) {
        clear()
        var cursor = ByteCursor<StateFormatError>(bytes)
        do {
            while !cursor.isAtEnd {
                let key = try cursor.readStringRange()
                entries.append(Entry(key: key, value: try StateValueView.read(&cursor)))
            }
        } catch {
            entries.removeAll(keepingCapacity: true)
            throw error
        }
        base = bytes
    }

    /// Forgets the container (nothing is found in it after), keeping the
    /// memory of the entries.
    public mutating func clear() {
        base = UnsafeRawBufferPointer(start: nil, count: 0)
        entries.removeAll(keepingCapacity: true)
    }

    /// The key of an entry, as UTF-8 bytes.
    public func keyBytes(of entry: Entry) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: base[entry.key])
    }

    /// The value of `key` (its last value if written twice), or nil.
    public func value(forKey key: UnsafeRawBufferPointer) -> StateValueView? {
        guard key.count > 0 else {
            return entries.last { $0.key.isEmpty }?.value
        }
        var index = entries.count
        while index > 0 {
            index -= 1
            let entry = entries[index]
            if entry.key.count == key.count && Self.equal(base.baseAddress! + entry.key.lowerBound, key.baseAddress!, key.count) {
                return entry.value
            }
        }
        return nil
    }

    /// The value of `key`, or nil.
    public func value(forKey key: String) -> StateValueView? {
        var key = key
        return key.withUTF8 { value(forKey: UnsafeRawBufferPointer($0)) }
    }

    /// Every entry fully decoded: what `restored-ctl dump` shows.
    public static func decodeEntries(_ bytes: [UInt8]) throws(StateFormatError) -> [StoredEntry] {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(StateFormatError) -> [StoredEntry] in
                let reader = try StateContainerReader(buffer)
                var entries: [StoredEntry] = []
                entries.reserveCapacity(reader.entries.count)
                for entry in reader.entries {
                    let key = String(decoding: reader.keyBytes(of: entry), as: UTF8.self)
                    entries.append(StoredEntry(key: key, value: try entry.value.decoded()))
                }
                return entries
            }
        }
        return try result.get()
    }

    /// Whether `bytes` is valid UTF-8 (what every key and string must be).
    public static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        ByteCursor<StateFormatError>.isValidUTF8(bytes)
    }

    /// Checks that `bytes` is a well-formed container, nested values included.
    public static func validate(_ bytes: [UInt8]) throws(StateFormatError) {
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(StateFormatError) in try validate(buffer) }
        }
        try result.get()
    }

    /// Checks that `bytes` is a well-formed container, without keeping anything.
    public static func validate(_ bytes: UnsafeRawBufferPointer) throws(StateFormatError) {
        var cursor = ByteCursor<StateFormatError>(bytes)
        while !cursor.isAtEnd {
            _ = try cursor.readStringRange()
            try StateValueView.read(&cursor).validate()
        }
    }

    /// Byte equality, eight bytes at a time: keys are short, and a call to
    /// memcmp costs more than comparing them.
    @inline(__always)
    private static func equal(_ lhs: UnsafeRawPointer, _ rhs: UnsafeRawPointer, _ count: Int) -> Bool {
        var offset = 0
        while offset + 8 <= count {
            if lhs.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != rhs.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                return false
            }
            offset += 8
        }
        while offset < count {
            if lhs.load(fromByteOffset: offset, as: UInt8.self) != rhs.load(fromByteOffset: offset, as: UInt8.self) { return false }
            offset += 1
        }
        return true
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
