import RestoredState
import Testing

/// Entries a plugin hands to the host (`encode_entries`): checked byte by byte.
@Suite struct PluginEntriesTests {
    /// Entries as a plugin writes them, with an object handle.
    static func pluginEntries(handle: UInt64 = 0xABCD) -> [UInt8] {
        var writer = StateContainerWriter()
        writer.appendKey("title")
        writer.appendString("Notes ✓")
        writer.appendKey("children")
        let mark = writer.beginNested(.array, count: 2)
        writer.appendObjectHandle(handle)
        writer.appendInt64(7)
        writer.endNested(mark)
        return writer.bytes
    }

    @Test("R14: object handles become the paths the host gives them")
    func handlesBecomePaths() throws {
        var host = StateContainerWriter()
        try Self.pluginEntries().withUnsafeBytes { input in
            try host.appendPluginEntries(input) { $0 == 0xABCD ? ObjectPath(identifiers: "Main", "List") : nil }
        }
        let entries = try StateContainerReader.decodeEntries(host.bytes)
        #expect(entries == [
            StoredEntry(key: "title", value: .string("Notes ✓")),
            StoredEntry(key: "children", value: .array([.reference(ObjectPath(identifiers: "Main", "List")), .int64(7)])),
        ])
    }

    @Test("R5, R14: reserved keys and unknown handles are refused, and nothing is kept")
    func refusals() throws {
        var host = StateContainerWriter()
        host.appendKey("before")
        host.appendBool(true)
        let before = host.bytes
        #expect(throws: PluginEntriesError.unknownObject(key: "children")) {
            try Self.pluginEntries().withUnsafeBytes { try host.appendPluginEntries($0) { _ in nil } }
        }
        #expect(host.bytes == before)
        var reserved = StateContainerWriter()
        reserved.appendKey("restored.className")
        reserved.appendString("Forged")
        #expect(throws: PluginEntriesError.reservedKey("restored.className")) {
            try reserved.bytes.withUnsafeBytes { try host.appendPluginEntries($0) { _ in nil } }
        }
        #expect(host.bytes == before)
    }

    @Test("R16: truncated or flipped plugin entries are refused or checked, never a crash; stored state never holds handles")
    func hostileEntries() throws {
        let input = Self.pluginEntries()
        var accepted = 0
        for length in 0..<input.count {
            var host = StateContainerWriter()
            if (try? Array(input.prefix(length)).withUnsafeBytes({ try host.appendPluginEntries($0) { _ in ObjectPath(identifiers: "X") } })) != nil {
                accepted += 1
                #expect(throws: Never.self) { try StateContainerReader.validate(host.bytes) }
            }
        }
        var flipped = input
        for index in flipped.indices {
            for bit in 0..<8 {
                flipped[index] ^= 1 << bit
                var host = StateContainerWriter()
                if (try? flipped.withUnsafeBytes({ try host.appendPluginEntries($0) { _ in ObjectPath(identifiers: "X") } })) != nil {
                    // Whatever was accepted is well-formed stored state.
                    #expect(throws: Never.self) { try StateContainerReader.validate(host.bytes) }
                }
                flipped[index] ^= 1 << bit
            }
        }
        #expect(accepted >= 1)  // the empty prefix is valid: no entries
        // A handle is never valid in stored state.
        #expect(throws: StateFormatError.self) { try StateContainerReader.validate(input) }
    }
}
