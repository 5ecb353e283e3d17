public import RestoredState

/// The entries of one message, read by key with their expected types, and
/// the bytes that follow them.
///
/// A message body is the length of its entries (u32, little-endian), the
/// entries (a keyed container) and then a blob: the archive of a save or a
/// restore travels there as it is, never copied into or out of a container.
///
/// Every accessor throws ``HostProtocolError/malformed(_:)`` naming the key
/// when the entry is missing or of another kind, so a message from a helper
/// is used only as far as it is what restored asked for.
public struct MessageFields: Sendable {
    private var values: [String: StoredValue] = [:]
    /// The bytes after the entries (empty when there are none).
    public let blob: ArraySlice<UInt8>

    /// Reads a message body; its entries are checked in full.
    public init(decoding body: [UInt8]) throws(HostProtocolError) {
        guard body.count >= 4 else { throw .malformed("a message of \(body.count) bytes, without the length of its entries") }
        let length = Int(UInt32(body[0]) | UInt32(body[1]) << 8 | UInt32(body[2]) << 16 | UInt32(body[3]) << 24)
        guard length <= body.count - 4 else { throw .malformed("a message whose entries (\(length) bytes) go past its end") }
        blob = body[(4 + length)...]
        let entries: [StoredEntry]
        do {
            entries = try StateContainerReader.decodeEntries(Array(body[4..<(4 + length)]))
        } catch {
            throw .malformed("an unreadable message (\(error))")
        }
        for entry in entries { values[entry.key] = entry.value }
    }

    /// The value under `key`, if any.
    public subscript(key: String) -> StoredValue? { values[key] }

    /// A string entry.
    public func string(_ key: String) throws(HostProtocolError) -> String {
        guard case .string(let value) = values[key] else { throw Self.missing(key, "string") }
        return value
    }

    /// A string entry that may be absent.
    public func optionalString(_ key: String) throws(HostProtocolError) -> String? {
        guard values[key] != nil else { return nil }
        return try string(key)
    }

    /// An unsigned integer entry.
    public func uint64(_ key: String) throws(HostProtocolError) -> UInt64 {
        guard case .uint64(let value) = values[key] else { throw Self.missing(key, "uint64") }
        return value
    }

    /// A signed integer entry.
    public func int64(_ key: String) throws(HostProtocolError) -> Int64 {
        guard case .int64(let value) = values[key] else { throw Self.missing(key, "int64") }
        return value
    }

    /// A count: an unsigned integer that fits an `Int`.
    public func count(_ key: String) throws(HostProtocolError) -> Int {
        let value = try uint64(key)
        guard value <= UInt64(Int.max) else { throw .malformed("\(key) is out of range") }
        return Int(value)
    }

    /// A Boolean entry.
    public func bool(_ key: String) throws(HostProtocolError) -> Bool {
        guard case .bool(let value) = values[key] else { throw Self.missing(key, "bool") }
        return value
    }

    /// A bytes entry.
    public func bytes(_ key: String) throws(HostProtocolError) -> [UInt8] {
        guard case .bytes(let value) = values[key] else { throw Self.missing(key, "bytes") }
        return value
    }

    /// An array of object references.
    public func paths(_ key: String) throws(HostProtocolError) -> [ObjectPath] {
        guard case .array(let elements) = values[key] else { throw Self.missing(key, "array") }
        var paths: [ObjectPath] = []
        paths.reserveCapacity(elements.count)
        for element in elements {
            guard case .reference(let path) = element else { throw .malformed("\(key) holds a \(element.kindName), not a reference") }
            paths.append(path)
        }
        return paths
    }

    /// An array of dictionaries, each read as fields.
    public func records(_ key: String) throws(HostProtocolError) -> [MessageFields] {
        guard case .array(let elements) = values[key] else { throw Self.missing(key, "array") }
        var records: [MessageFields] = []
        for element in elements {
            guard case .dictionary(let entries) = element else { throw .malformed("\(key) holds a \(element.kindName), not a dictionary") }
            var fields = MessageFields()
            for entry in entries { fields.values[entry.key] = entry.value }
            records.append(fields)
        }
        return records
    }

    /// A dictionary of strings.
    public func strings(_ key: String) throws(HostProtocolError) -> [String: String] {
        guard case .dictionary(let entries) = values[key] else { throw Self.missing(key, "dictionary") }
        var result: [String: String] = [:]
        for entry in entries {
            guard case .string(let value) = entry.value else { throw .malformed("\(key).\(entry.key) is a \(entry.value.kindName), not a string") }
            result[entry.key] = value
        }
        return result
    }

    /// Nested fields: no blob.
    private init() { blob = [] }

    private static func missing(_ key: String, _ kind: String) -> HostProtocolError {
        .malformed("no \(kind) entry \"\(key)\"")
    }
}

extension [StoredEntry] {
    /// The message body of these entries, to be followed by a blob (see ``MessageFields``).
    public var messageBody: [UInt8] {
        let container = StateContainerWriter.encode(self)
        var body: [UInt8] = []
        body.reserveCapacity(4 + container.count)
        Swift.withUnsafeBytes(of: UInt32(container.count).littleEndian) { body.append(contentsOf: $0) }
        body.append(contentsOf: container)
        return body
    }
}

extension StoredValue {
    /// An array of references.
    static func paths(_ paths: [ObjectPath]) -> StoredValue {
        .array(paths.map { .reference($0) })
    }

    /// A dictionary of strings, in key order.
    static func strings(_ strings: [String: String]) -> StoredValue {
        .dictionary(strings.sorted { $0.key < $1.key }.map { StoredEntry(key: $0.key, value: .string($0.value)) })
    }
}
