import MessagePack
import Testing

/// Finding where a value ends while its bytes arrive, without decoding it.
@Suite struct MessagePackFramerTests {
    static let values: [MessagePackValue] = [
        .nil, false, true, .int(0), .int(127), .int(-32), .int(-128), .int(-32768), .int(Int64.min), .int(Int64.max), .uint(UInt64.max),
        .int(255), .int(65535), .int(65536), .int(1 << 32), .float(-0.25), "", .string("é ü 日本"), .string(String(repeating: "y", count: 70000)),
        .binary([]), .binary([UInt8](repeating: 7, count: 300)), .binary([UInt8](repeating: 8, count: 70000)),
        .array(Array(repeating: .nil, count: 20)), .array([]), .map([]),
        .map((0 ..< 20).map { .init(.int(Int64($0)), "v") }), .extension(type: -2, data: [1, 2, 3]),
        .extension(type: 2, data: Array(repeating: 9, count: 16)), .extension(type: 3, data: Array(repeating: 1, count: 300)),
        [[["deep"]], .map([.init(.nil, [true])])],
        [1, 7, .nil, .map([.init("mode", "n"), .init("blocking", false)])],
    ]

    @Test("Fed one byte at a time, every value's end is found exactly at its last byte, and the framer starts again after it")
    func byteByByte() throws {
        for value in Self.values {
            let bytes = MessagePackWriter.encode(value)
            let stream = bytes + MessagePackWriter.encode("next")
            var framer = MessagePackFramer()
            for cut in 1 ..< bytes.count {
                #expect(try framer.endOfFirstValue(in: stream[..<cut], limit: 1 << 20) == nil, "\(value) ended early at \(cut)")
            }
            #expect(try framer.endOfFirstValue(in: stream[..<(bytes.count + 2)], limit: 1 << 20) == bytes.count)
            // The next value, from its own start.
            #expect(try framer.endOfFirstValue(in: stream[bytes.count...], limit: 1 << 20) == stream.count - bytes.count)
        }
    }

    @Test("Fed in pieces of any size, the end is the reader's")
    func pieces() throws {
        let bytes = Self.values.flatMap { MessagePackWriter.encode($0) }
        for piece in [1, 3, 64, 4096] {
            var framer = MessagePackFramer()
            var start = 0
            var available = 0
            var found: [Int] = []
            while available < bytes.count {
                available = min(bytes.count, available + piece)
                while let end = try framer.endOfFirstValue(in: bytes[start ..< available], limit: 1 << 20) {
                    found.append(end)
                    start += end
                }
            }
            #expect(found == Self.values.map { MessagePackWriter.encode($0).count }, "pieces of \(piece)")
        }
    }

    @Test("A byte no value starts with, nesting past the reader's limit, and a length over the limit are thrown as soon as seen")
    func refusals() {
        var framer = MessagePackFramer()
        #expect(throws: MessagePackError.unknownMarker(0xC1, offset: 1)) { try framer.endOfFirstValue(in: [0x92, 0xC1], limit: 100) }
        framer = MessagePackFramer()
        #expect(throws: MessagePackError.self) {
            try framer.endOfFirstValue(in: Array(repeating: 0x91, count: MessagePackReader.maximumDepth + 2), limit: 1 << 20)
        }
        // A str32 announcing 4 GiB, with none of its bytes here yet.
        framer = MessagePackFramer()
        #expect(throws: MessagePackError.lengthTooLarge(0xFFFF_FFFF, offset: 0)) {
            try framer.endOfFirstValue(in: [0xDB, 0xFF, 0xFF, 0xFF, 0xFF], limit: 16 << 20)
        }
        // An array announcing more elements than the limit has bytes.
        framer = MessagePackFramer()
        #expect(throws: MessagePackError.self) { try framer.endOfFirstValue(in: [0xDD, 0x01, 0, 0, 0], limit: 1000) }
    }
}
