import MessagePack
import Testing

/// MessagePack as the spec writes it: shortest forms, every family read,
/// values cut short waiting for more, and bytes that are no value.
@Suite struct MessagePackTests {
    @Test("Known encodings from the spec, shortest form first")
    func knownBytes() {
        #expect(MessagePackWriter.encode(.nil) == [0xC0])
        #expect(MessagePackWriter.encode(true) == [0xC3])
        #expect(MessagePackWriter.encode(.int(5)) == [0x05])
        #expect(MessagePackWriter.encode(.int(-1)) == [0xFF])
        #expect(MessagePackWriter.encode(.int(-33)) == [0xD0, 0xDF])
        #expect(MessagePackWriter.encode(.int(200)) == [0xCC, 0xC8])
        #expect(MessagePackWriter.encode(.int(-40000)) == [0xD2, 0xFF, 0xFF, 0x63, 0xC0])
        #expect(MessagePackWriter.encode(.uint(1 << 40)) == [0xCF, 0, 0, 1, 0, 0, 0, 0, 0])
        #expect(MessagePackWriter.encode("abc") == [0xA3, 0x61, 0x62, 0x63])
        #expect(MessagePackWriter.encode(.string(String(repeating: "x", count: 40))).prefix(2) == [0xD9, 40])
        #expect(MessagePackWriter.encode([1, 2]) == [0x92, 1, 2])
        #expect(MessagePackWriter.encode(.map([.init("a", 1)])) == [0x81, 0xA1, 0x61, 1])
        #expect(MessagePackWriter.encode(.extension(type: 1, data: [3])) == [0xD4, 1, 3])
        #expect(MessagePackWriter.encode(.float(1.5)) == [0xCB, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0])
    }

    @Test("What is written reads back the same, for every family and size")
    func roundTrip() throws {
        let values: [MessagePackValue] = [
            .nil, false, true, .int(0), .int(127), .int(-32), .int(-128), .int(-32768), .int(Int64.min), .int(Int64.max), .uint(UInt64.max),
            .int(255), .int(65535), .int(65536), .int(1 << 32), .float(-0.25), "", .string("é ü 日本"), .string(String(repeating: "y", count: 70000)),
            .binary([]), .binary([UInt8](repeating: 7, count: 300)), .array(Array(repeating: .nil, count: 20)),
            .map((0 ..< 20).map { .init(.int(Int64($0)), "v") }), .extension(type: -2, data: [1, 2, 3]),
            .extension(type: 2, data: Array(repeating: 9, count: 16)), [[["deep"]], .map([.init(.nil, [true])])],
        ]
        for value in values {
            var reader = MessagePackReader(MessagePackWriter.encode(value))
            #expect(try reader.read() == value)
            #expect(reader.isAtEnd)
        }
    }

    @Test("A value cut anywhere waits for more and leaves the reader where it was; two values read one after the other")
    func incomplete() throws {
        let bytes = MessagePackWriter.encode([0, 7, "nvim_get_mode", .map([.init("blocking", false)])])
        for cut in 0 ..< bytes.count {
            var reader = MessagePackReader(Array(bytes[..<cut]))
            #expect(throws: MessagePackError.incomplete) { try reader.read() }
            #expect(reader.offset == 0)
        }
        var reader = MessagePackReader(bytes + MessagePackWriter.encode("next"))
        _ = try reader.read()
        #expect(try reader.read() == "next")
        #expect(reader.isAtEnd)
    }

    @Test("Bytes no value starts with, and nesting past the limit, are errors, not crashes")
    func garbage() {
        var reader = MessagePackReader([0xC1])
        #expect(throws: MessagePackError.self) { try reader.read() }
        var deep = MessagePackReader(Array(repeating: 0x91, count: 10_000) + [0xC0])
        #expect(throws: MessagePackError.self) { try deep.read() }
        // A huge count with few bytes waits for more, allocating nothing first.
        var huge = MessagePackReader([0xDD, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: MessagePackError.incomplete) { try huge.read() }
    }

    @Test("Integers read as .int whenever they fit, whichever family carried them")
    func integers() throws {
        var reader = MessagePackReader(MessagePackWriter.encode(.uint(7)) + [0xCF, 0, 0, 0, 0, 0, 0, 0, 9])
        #expect(try reader.read() == .int(7))
        #expect(try reader.read() == .int(9))
    }

    @Test("A str whose bytes are not UTF-8 reads as those bytes, never as repaired text")
    func invalidText() throws {
        var reader = MessagePackReader([0xA3, 0x61, 0xFF, 0x62])
        #expect(try reader.read() == .binary([0x61, 0xFF, 0x62]))
    }

    @Test("Neovim's handles are ext values holding an integer")
    func handles() {
        #expect(MessagePackValue.extension(type: 1, data: MessagePackWriter.encode(.int(1000))).intValue == 1000)
        #expect(MessagePackValue.extension(type: 1, data: [0xC1]).intValue == nil)
        #expect(MessagePackValue.map([.init("mode", "n")])["mode"] == "n")
    }
}
