import RestoredDBus
import Testing

/// The typed accessors of `DBusValue`, through variants too.
@Suite struct DBusValueTests {
    @Test("int64Value takes every integer that fits, and nothing else")
    func int64Value() {
        #expect(DBusValue.int64(-5).int64Value == -5)
        #expect(DBusValue.int32(-7).int64Value == -7)
        #expect(DBusValue.uint32(7).int64Value == 7)
        #expect(DBusValue.variant(.int64(9)).int64Value == 9)
        #expect(DBusValue.uint64(.max).int64Value == nil)
        #expect(DBusValue.string("1").int64Value == nil)
    }

    @Test("structureValue gives the fields of a structure, inside a variant too")
    func structureValue() {
        let fields: [DBusValue] = [.string("a"), .uint32(1)]
        #expect(DBusValue.structure(fields).structureValue == fields)
        #expect(DBusValue.variant(.structure(fields)).structureValue == fields)
        #expect(DBusValue.array(elementSignature: "s", []).structureValue == nil)
    }
}
