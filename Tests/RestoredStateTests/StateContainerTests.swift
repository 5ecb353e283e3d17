import RestoredState
import Testing

/// The keyed-container wire format.
@Suite struct StateContainerTests {
    static let entries: [StoredEntry] = [
        StoredEntry(key: "flag", value: .bool(true)),
        StoredEntry(key: "off", value: .bool(false)),
        StoredEntry(key: "negative", value: .int64(-1234567890123)),
        StoredEntry(key: "min", value: .int64(.min)),
        StoredEntry(key: "max", value: .uint64(.max)),
        StoredEntry(key: "pi", value: .double(3.141592653589793)),
        StoredEntry(key: "text", value: .string("héllo ✓ wörld")),
        StoredEntry(key: "empty", value: .string("")),
        StoredEntry(key: "bytes", value: .bytes([0, 1, 2, 255])),
        StoredEntry(key: "when", value: .date(1_700_000_000.25)),
        StoredEntry(key: "list", value: .array([.int64(1), .string("two"), .array([.bool(false)])])),
        StoredEntry(key: "map", value: .dictionary([StoredEntry(key: "a", value: .int64(1)), StoredEntry(key: "b", value: .dictionary([]))])),
        StoredEntry(key: "ref", value: .reference(ObjectPath([.init(identifier: "Main"), .init(identifier: "Page", position: 3)]))),
        StoredEntry(key: "ünïcode key", value: .uint64(7)),
    ]

    @Test("R16: every kind of value round-trips")
    func roundTrip() throws {
        let bytes = StateContainerWriter.encode(Self.entries)
        #expect(try StateContainerReader.decodeEntries(bytes) == Self.entries)
    }

    @Test("R5: a key written twice reads as its last value")
    func lastValueWins() throws {
        let bytes = StateContainerWriter.encode([StoredEntry(key: "k", value: .int64(1)), StoredEntry(key: "k", value: .int64(2))])
        try bytes.withUnsafeBytes { buffer in
            let reader = try StateContainerReader(buffer)
            #expect(reader.value(forKey: "k")?.int64Value == 2)
            #expect(reader.value(forKey: "missing") == nil)
        }
    }

    @Test("R5, R16: a reader indexed again finds only the new container's keys, and nothing after a malformed one")
    func readerIndexedAgain() throws {
        let first = StateContainerWriter.encode([StoredEntry(key: "a", value: .int64(1)), StoredEntry(key: "b", value: .int64(2))])
        let second = StateContainerWriter.encode([StoredEntry(key: "c", value: .int64(3))])
        var reader = StateContainerReader()
        #expect(reader.value(forKey: "a") == nil)
        try first.withUnsafeBytes { buffer in
            try reader.index(buffer)
            #expect(reader.value(forKey: "b")?.int64Value == 2)
        }
        // Truncated: the first entry of the new container reads, the second does not.
        let malformed = Array(first.dropLast())
        _ = malformed.withUnsafeBytes { buffer in
            #expect(throws: StateFormatError.self) { try reader.index(buffer) }
        }
        #expect(reader.entries.isEmpty)
        #expect(reader.value(forKey: "a") == nil)
        try second.withUnsafeBytes { buffer in
            try reader.index(buffer)
            #expect(reader.value(forKey: "c")?.int64Value == 3)
            #expect(reader.value(forKey: "a") == nil)
            #expect(reader.entries.count == 1)
        }
        reader.clear()
        #expect(reader.value(forKey: "c") == nil)
    }

    @Test("R16: every truncation and every bit flip gives an error or a value, never a crash")
    func hostileBytes() throws {
        let bytes = StateContainerWriter.encode(Self.entries)
        for length in 0..<bytes.count {
            _ = try? StateContainerReader.decodeEntries(Array(bytes.prefix(length)))
        }
        var flipped = bytes
        for index in flipped.indices {
            for bit in 0..<8 {
                flipped[index] ^= 1 << bit
                _ = try? StateContainerReader.decodeEntries(flipped)
                flipped[index] ^= 1 << bit
            }
        }
        // Structural lies are errors.
        #expect(throws: StateFormatError.self) { try StateContainerReader.decodeEntries([0x01, 0x41, 0xEE]) }
        #expect(throws: StateFormatError.self) { try StateContainerReader.decodeEntries([0x05, 0x41]) }
        #expect(throws: StateFormatError.self) { try StateContainerReader.decodeEntries([0x01, 0x41, 0x06, 0x02, 0xC3, 0x28]) }
        #expect(throws: StateFormatError.self) {
            try StateContainerReader.decodeEntries([0x01, 0x41, 0x09, 0xFF, 0xFF, 0xFF, 0x7F, 0x01])
        }
    }

    @Test("R16: nesting deeper than the limit is refused, not a stack overflow")
    func depthLimit() throws {
        var value = StoredValue.int64(1)
        for _ in 0..<(StateValueView.maximumDepth + 5) { value = .array([value]) }
        let bytes = StateContainerWriter.encode([StoredEntry(key: "deep", value: value)])
        #expect(throws: StateFormatError.self) { try StateContainerReader.decodeEntries(bytes) }
    }
}
