import FoundationEssentials
import RestorationKit
import RestoredState
import Testing

/// `StateTag.kindName` is the one table of kind names: stored values, the
/// SDK's values and the tags a reader finds all name their kinds through it.
@Suite struct StateTagNameTests {
    @Test("each tag's kind name is the kindName of the value it starts")
    func kindNames() throws {
        let values: [StoredValue] = [
            .bool(false), .bool(true), .int64(-1), .uint64(1), .double(0.5), .string("s"), .bytes([1]), .date(1),
            .array([.int64(1)]), .dictionary([StoredEntry(key: "k", value: .bool(true))]), .reference(ObjectPath(identifiers: "A")),
        ]
        let bytes = StateContainerWriter.encode(values.enumerated().map { StoredEntry(key: "k\($0.offset)", value: $0.element) })
        try bytes.withUnsafeBytes { raw in
            let reader = try StateContainerReader(raw)
            #expect(reader.entries.map(\.value.tag) == values.map(\.tag))
            #expect(reader.entries.map(\.value.tag.kindName) == values.map(\.kindName))
        }
        #expect(StateTag.objectHandle.kindName == "handle")
    }

    @Test("the SDK's StateValue names each kind as the stored value it becomes")
    func sdkKindNames() {
        let pairs: [(RestorationKit.StateValue, StoredValue)] = [
            (.bool(true), .bool(true)), (.int64(-1), .int64(-1)), (.uint64(1), .uint64(1)), (.double(0.5), .double(0.5)),
            (.string("s"), .string("s")), (.bytes(Data([1])), .bytes([1])), (.date(Date(timeIntervalSince1970: 1)), .date(1)),
            (.array([]), .array([])), (.dictionary([:]), .dictionary([])), (.object(nil), .reference(ObjectPath(identifiers: "A"))),
        ]
        for (sdk, stored) in pairs {
            #expect(sdk.kindName == stored.kindName)
        }
        #expect(Set(pairs.map(\.0.kindName)).count == pairs.count)
    }
}
