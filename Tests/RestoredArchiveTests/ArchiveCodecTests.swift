import RestoredArchive
import RestoredState
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Archive codec")
struct ArchiveCodecTests {
    @Test("a rich archive round-trips: unicode, positions, every kind, snapshot, flags, big state")
    func roundTrip() throws {
        var archive = Samples.small()
        archive.appVersion = "2.0 β — ✓ 🎉"
        archive.timestamp = -42  // before 1970: zigzag must keep the sign
        archive.generation = .max
        archive.restoreAttempts = .max
        archive.appState = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        archive.objects.append(
            ArchivedObject(
                path: ObjectPath([
                    .init(identifier: "Fenêtre 🪟"), .init(identifier: "", position: 0),
                    .init(identifier: "Tab", position: .max),
                ]),
                className: "Ünïcode",
                restorationClass: "Рестор",
                kind: .manual,
                state: Array(repeating: 0, count: 200)
            )
        )
        let bytes = ArchiveCodec.encode(archive)
        #expect(try ArchiveCodec.decode(bytes) == archive)
        let viaRawBuffer = try bytes.withUnsafeBytes { raw throws(ArchiveError) in try ArchiveCodec.decode(raw) }
        #expect(viaRawBuffer == archive)

        var minimal = Archive(appID: Samples.notes)
        minimal.timestamp = .min
        #expect(try ArchiveCodec.decode(ArchiveCodec.encode(minimal)) == minimal)
        minimal.timestamp = .max
        #expect(try ArchiveCodec.decode(ArchiveCodec.encode(minimal)) == minimal)
    }

    @Test("the header layout: signature, version 1, header length 40, flags, counters, lengths, checksum")
    func headerLayout() {
        let archive = Samples.small()
        let bytes = ArchiveCodec.encode(archive)
        #expect(Array(bytes[0..<8]) == [0x89, 0x52, 0x53, 0x54, 0x52, 0x44, 0x0D, 0x0A])
        #expect(Self.load(UInt16.self, bytes, 8) == 1)
        #expect(Self.load(UInt16.self, bytes, 10) == 40)
        #expect(Self.load(UInt32.self, bytes, 12) == 1)  // ignoresSnapshot
        #expect(Self.load(UInt32.self, bytes, 16) == archive.restoreAttempts)
        #expect(Self.load(UInt64.self, bytes, 20) == archive.generation)
        #expect(Self.load(UInt64.self, bytes, 28) == UInt64(bytes.count - 44))
        #expect(Self.load(UInt32.self, bytes, 36) == 0)
        #expect(Self.load(UInt32.self, bytes, bytes.count - 4) == CRC32C.checksum(Array(bytes.dropLast(4))))
    }

    @Test("R16: truncation at every byte offset throws, never crashes")
    func truncation() {
        let bytes = ArchiveCodec.encode(Samples.small())
        var accepted: [Int] = []
        for length in 0..<bytes.count {
            if (try? ArchiveCodec.decode(Array(bytes[..<length]))) != nil {
                accepted.append(length)
            }
        }
        #expect(accepted.isEmpty)
        #expect(throws: ArchiveError.lengthMismatch(expected: UInt64(bytes.count), actual: bytes.count - 1)) {
            try ArchiveCodec.decode(Array(bytes.dropLast()))
        }
        #expect(throws: ArchiveError.lengthMismatch(expected: UInt64(bytes.count), actual: bytes.count + 1)) {
            try ArchiveCodec.decode(bytes + [0])
        }
    }

    @Test("R16: flipping any single bit throws (the CRC catches every single-bit flip)")
    func bitFlips() {
        let bytes = ArchiveCodec.encode(Samples.small())
        #expect(bytes.count > 200 && bytes.count < 1000)
        var accepted: [Int] = []
        for bit in 0..<(bytes.count * 8) {
            var flipped = bytes
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            if (try? ArchiveCodec.decode(flipped)) != nil {
                accepted.append(bit)
            }
        }
        #expect(accepted.isEmpty, "bits accepted after a flip: \(accepted)")
        var payloadFlip = bytes
        payloadFlip[60] ^= 0x04
        #expect(throws: ArchiveError.self) { try ArchiveCodec.decode(payloadFlip) }
        do {
            _ = try ArchiveCodec.decode(payloadFlip)
        } catch {
            #expect(error.description == "corrupt archive: checksum mismatch")
        }
    }

    @Test("R16: errors of the envelope, in order: signature, version, length, checksum")
    func envelopeErrors() {
        let bytes = ArchiveCodec.encode(Samples.small())
        #expect(throws: ArchiveError.notAnArchive) { try ArchiveCodec.decode([]) }
        #expect(throws: ArchiveError.notAnArchive) { try ArchiveCodec.decode(Array("hello, world, this is text".utf8)) }
        var other = bytes
        other[1] = UInt8(ascii: "X")
        #expect(throws: ArchiveError.notAnArchive) { try ArchiveCodec.decode(other) }

        var newer = bytes
        newer[8] = 4
        let error = #expect(throws: ArchiveError.unsupportedVersion(4)) { try ArchiveCodec.decode(newer) }
        #expect(error?.description.contains("version 4") == true)
        #expect(error?.description.contains("newer restored") == true)

        var crc = bytes
        crc[crc.count - 1] ^= 0xFF
        #expect(throws: ArchiveError.self) { try ArchiveCodec.decode(crc) }
        if case .checksumMismatch? = Self.error(crc) {} else { Issue.record("expected a checksum mismatch") }

        var huge = bytes
        Self.store(UInt64.max - 10, &huge, 28)  // payload length that overflows with the header
        if case .lengthMismatch? = Self.error(huge) {} else { Issue.record("expected a length mismatch") }
    }

    @Test("seal(of:) reads the generation and app id of an intact file and refuses what decode refuses in the envelope")
    func seal() {
        var archive = Samples.small()
        archive.generation = 42
        let bytes = ArchiveCodec.encode(archive)
        let seal = try? ArchiveCodec.seal(of: bytes)
        #expect(seal?.generation == 42)
        #expect(seal?.appID == archive.appID)
        #expect(throws: ArchiveError.notAnArchive) { try ArchiveCodec.seal(of: Array("plain text, not an archive".utf8)) }
        var newer = bytes
        newer[8] = 4
        #expect(throws: ArchiveError.unsupportedVersion(4)) { try ArchiveCodec.seal(of: newer) }
        // Any flipped bit, header or payload, breaks the seal as it breaks decoding.
        for offset in stride(from: 0, to: bytes.count, by: 7) {
            var flipped = bytes
            flipped[offset] ^= 0x10
            #expect(throws: ArchiveError.self) { try ArchiveCodec.seal(of: flipped) }
        }
    }

    @Test("R16: hostile payloads with a valid checksum throw, never crash")
    func hostilePayloads() throws {
        let appID = Array("org.example.Notes".utf8)
        // Fields after the app id for an otherwise empty archive.
        let emptyTail: [UInt8] = [0, 0, 0, 0, 0, 0, 0]  // versions, timestamp, plugin, state, 0 objects, no snapshot

        func payload(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } }
        func string(_ bytes: [UInt8]) -> [UInt8] { Self.varint(UInt64(bytes.count)) + bytes }

        // Sanity: the hand-built minimal payload decodes.
        let minimal = Self.sealed(payload(string(appID), emptyTail))
        #expect(try ArchiveCodec.decode(minimal).appID == Samples.notes)

        let objectHead = payload(string(appID), [0, 0, 0, 0, 0], [1])  // ... 1 object
        let cases: [(String, [UInt8], (ArchiveError) -> Bool)] = [
            ("huge string length", payload(Self.varint(.max)), { if case .lengthBeyondEnd = $0 { true } else { false } }),
            ("length past the end", payload(Self.varint(1000), appID), { if case .lengthBeyondEnd = $0 { true } else { false } }),
            ("varint of 11 bytes", payload([UInt8](repeating: 0xFF, count: 11)), { if case .varintOverflow = $0 { true } else { false } }),
            ("varint over 64 bits", payload([UInt8](repeating: 0xFF, count: 9) + [0x02]), { if case .varintOverflow = $0 { true } else { false } }),
            ("invalid UTF-8 app id", payload(string([0x6F, 0xC3, 0x28, 0x2E, 0x78])), { if case .invalidUTF8 = $0 { true } else { false } }),
            ("lone surrogate", payload(string(appID), string([0xED, 0xA0, 0x80]), [0, 0, 0, 0, 0, 0]), { if case .invalidUTF8 = $0 { true } else { false } }),
            ("invalid app id", payload(string(Array("../../etc".utf8)), emptyTail), { if case .invalidAppID = $0 { true } else { false } }),
            ("empty payload", [], { if case .lengthBeyondEnd = $0 { true } else { false } }),
            ("huge object count", payload(string(appID), [0, 0, 0, 0, 0], Self.varint(.max), [0]), { if case .lengthBeyondEnd = $0 { true } else { false } }),
            ("huge component count", payload(objectHead, Self.varint(1 << 40), [0, 0, 0, 0, 0, 0]), { if case .lengthBeyondEnd = $0 { true } else { false } }),
            ("position too large", payload(objectHead, [1], string([0x41]), Self.varint(.max), [0, 0, 0, 0], [0]), { if case .invalidPosition = $0 { true } else { false } }),
            ("unknown kind", payload(objectHead, [0], [0, 0], [7], [0], [0]), { if case .unknownObjectKind(7, _) = $0 { true } else { false } }),
            ("bad presence byte", payload(string(appID), [0, 0, 0, 0, 0, 0], [2]), { if case .invalidPresence(2, _) = $0 { true } else { false } }),
            ("snapshot cut short", payload(string(appID), [0, 0, 0, 0, 0, 0], [1], string(Array("a".utf8))), { if case .lengthBeyondEnd = $0 { true } else { false } }),
            ("trailing payload bytes", payload(string(appID), emptyTail, [0, 0, 0]), { if case .trailingPayloadBytes(count: 3) = $0 { true } else { false } }),
        ]
        for (name, payload, matches) in cases {
            let bytes = Self.sealed(payload)
            guard let error = Self.error(bytes) else {
                Issue.record("\(name): decoded without an error")
                continue
            }
            #expect(matches(error), "\(name): \(error)")
            #expect(error.description.hasPrefix("corrupt archive: "), "\(name): \(error)")
        }

        // Header fields that format version 1 does not allow, with a valid checksum.
        var flags = minimal
        Self.store(UInt32(0x10), &flags, 12)
        #expect(throws: ArchiveError.invalidHeader(field: "flags", value: 0x10)) {
            try ArchiveCodec.decode(Self.resealed(flags))
        }
        var reserved = minimal
        Self.store(UInt32(5), &reserved, 36)
        #expect(throws: ArchiveError.invalidHeader(field: "reserved", value: 5)) {
            try ArchiveCodec.decode(Self.resealed(reserved))
        }
        var headerLength = minimal
        Self.store(UInt16(48), &headerLength, 10)
        #expect(throws: ArchiveError.invalidHeader(field: "header length", value: 48)) {
            try ArchiveCodec.decode(Self.resealed(headerLength))
        }
    }

    @Test("R16: strings are accepted exactly when they are well-formed UTF-8")
    func utf8Validation() throws {
        let appID = Array("org.example.Notes".utf8)
        func archive(version: [UInt8]) -> [UInt8] {
            Self.sealed(Self.varint(UInt64(appID.count)) + appID + Self.varint(UInt64(version.count)) + version + [0, 0, 0, 0, 0, 0])
        }
        let edgeCases: [[UInt8]] = [
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80],
            [0xED, 0xBF, 0xBF], [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80],
            [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0x41, 0xC3],
            [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
            [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], Array("plain ascii, longer than eight".utf8),
            Array("mixé 🎉 ✓ text".utf8),
        ]
        var generator = SystemRandomNumberGenerator()
        var samples = edgeCases
        for _ in 0..<5_000 {
            let length = Int.random(in: 0...12, using: &generator)
            samples.append((0..<length).map { _ in
                Bool.random(using: &generator) ? UInt8.random(in: 0x80...0xFF, using: &generator) : UInt8.random(in: 0...0xFF, using: &generator)
            })
        }
        for sample in samples {
            let expected = String(validating: sample, as: UTF8.self)
            let decoded = try? ArchiveCodec.decode(archive(version: sample))
            #expect(decoded?.appVersion == expected, "\(sample)")
            if expected == nil, case .invalidUTF8? = Self.error(archive(version: sample)) {} else if expected == nil {
                Issue.record("expected invalidUTF8 for \(sample)")
            }
        }
    }

    @Test("R16: random mutations with a recomputed checksum never crash the decoder")
    func randomMutations() {
        var generator = SystemRandomNumberGenerator()
        let original = ArchiveCodec.encode(Samples.small())
        for _ in 0..<20_000 {
            var bytes = original
            let edits = Int.random(in: 1...4, using: &generator)
            for _ in 0..<edits {
                let index = Int.random(in: 40..<(bytes.count - 4), using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: bytes[index] = [0x00, 0x7F, 0x80, 0xFF].randomElement(using: &generator) ?? 0
                default: bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
                }
            }
            // Either an error or an archive: what matters is that we get
            // here, with check(_:) agreeing.
            _ = Self.error(Self.resealed(bytes))
        }
    }

    /// Speed is measured by `restored-bench codec`, not asserted here.
    @Test("10,000 objects with ~3 MB of state come back equal")
    func largeArchive() throws {
        let archive = Samples.large(objects: 10_000, stateSize: 300)
        let bytes = ArchiveCodec.encode(archive)
        #expect(try ArchiveCodec.decode(bytes) == archive)
        #expect(bytes.count > 3_000_000)
        #expect(try ArchiveCodec.check(bytes).appID == archive.appID)
    }

    // MARK: - Helpers

    /// decode's error for `bytes`, if any; check(_:) must give the same
    /// answer, since restored writes what a plugin host sends after check.
    static func error(_ bytes: [UInt8]) -> ArchiveError? {
        var decoded: ArchiveError?
        var checked: ArchiveError?
        var archive: Archive?
        do { archive = try ArchiveCodec.decode(bytes) } catch { decoded = error }
        do {
            let seal = try ArchiveCodec.check(bytes)
            #expect(seal.appID == archive?.appID && seal.generation == archive?.generation && seal.timestamp == archive?.timestamp)
        } catch { checked = error }
        #expect(decoded == checked)
        return decoded
    }

    static func varint(_ value: UInt64) -> [UInt8] {
        var value = value
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
        return bytes
    }

    static func load<T: FixedWidthInteger>(_ type: T.Type, _ bytes: [UInt8], _ offset: Int) -> T {
        bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }

    static func store<T: FixedWidthInteger>(_ value: T, _ bytes: inout [UInt8], _ offset: Int) {
        bytes.withUnsafeMutableBytes { $0.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self) }
    }

    /// A version-1 archive file around `payload`, with a correct header and checksum.
    static func sealed(_ payload: [UInt8]) -> [UInt8] {
        var bytes = ArchiveCodec.encode(Archive(appID: Samples.notes))
        bytes = Array(bytes[..<ArchiveCodec.headerLength]) + payload + [0, 0, 0, 0]
        return resealed(bytes)
    }

    /// `bytes` with the payload length and the checksum recomputed after tampering.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        store(UInt64(bytes.count - 44), &bytes, 28)
        store(CRC32C.checksum(Array(bytes.dropLast(4))), &bytes, bytes.count - 4)
        return bytes
    }
}
