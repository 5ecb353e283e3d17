import RestoredState
import Testing

/// `StateTag.kindName` names kinds as decoded values do.
@Suite struct StateTagNameTests {
    @Test("each tag's kind name is the kindName of the value it starts")
    func kindNames() throws {
        let values: [StateValue] = [
            .bool(false), .bool(true), .int64(-1), .uint64(1), .double(0.5), .string("s"), .bytes([1]), .date(1),
            .array([.int64(1)]), .dictionary([StateEntry(key: "k", value: .bool(true))]), .reference(ObjectPath(identifiers: "A")),
        ]
        let bytes = StateContainerWriter.encode(values.enumerated().map { StateEntry(key: "k\($0.offset)", value: $0.element) })
        try bytes.withUnsafeBytes { raw in
            let reader = try StateContainerReader(raw)
            #expect(reader.entries.map(\.value.tag.kindName) == values.map(\.kindName))
        }
        #expect(StateTag.objectHandle.kindName == "handle")
    }
}
