import RestoredArchive
import Testing

/// The record of restore attempts beside an app's archives (R15), as `docs/archive.md` gives its format.
@Suite("Restore attempt record")
struct RestoreAttemptRecordTests {
    @Test("R15: one archive's record is 24 bytes as documented, two archives' 36, and each reads back as written")
    func layout() {
        let record = RestoreAttemptRecord(attemptsByGeneration: [0x0102_0304_0506_0708: 3])
        let bytes = record.encoded
        #expect(bytes.count == 24)
        #expect(Array(bytes[0..<4]) == Array("RSRA".utf8))
        #expect(Array(bytes[4..<8]) == [1, 0, 1, 0])
        #expect(Array(bytes[8..<12]) == [3, 0, 0, 0])
        #expect(Array(bytes[12..<20]) == [8, 7, 6, 5, 4, 3, 2, 1])
        let crc = CRC32C.checksum(Array(bytes[0..<20]))
        #expect(Array(bytes[20..<24]) == [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)])
        #expect(RestoreAttemptRecord(decoding: bytes) == record)

        let two = RestoreAttemptRecord(attemptsByGeneration: [9: 1, 4: 2])
        #expect(two.encoded.count == 36)
        #expect(Array(two.encoded[8..<20]) == [2, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0], "entries go by generation")
        #expect(RestoreAttemptRecord(decoding: two.encoded) == two)
    }

    @Test("R15: a record counts each generation apart; setting one count leaves the others, 0 removes it, and past eight generations the oldest go")
    func countsPerGeneration() {
        var record = RestoreAttemptRecord(attemptsByGeneration: [7: 2])
        #expect(record.attempts(forGeneration: 7) == 2)
        #expect(record.attempts(forGeneration: 8) == 0)
        record = record.settingAttempts(1, forGeneration: 8)
        #expect(record.attemptsByGeneration == [7: 2, 8: 1])
        record = record.settingAttempts(0, forGeneration: 7)
        #expect(record.attemptsByGeneration == [8: 1])
        #expect(record.settingAttempts(0, forGeneration: 8).isEmpty)
        for generation in UInt64(20)..<30 { record = record.settingAttempts(1, forGeneration: generation) }
        #expect(record.attemptsByGeneration.count == RestoreAttemptRecord.maximumEntries)
        #expect(record.attemptsByGeneration.keys.min() == 22)
        // The generation set is kept even when it is the oldest.
        #expect(record.settingAttempts(5, forGeneration: 1).attempts(forGeneration: 1) == 5)
    }

    @Test("R15: a record that does not read counts one attempt for any generation; setting a count drops what could not be read", arguments: [
        [], Array("RSRA".utf8), RestoreAttemptRecord(attemptsByGeneration: [7: 0, 9: 1]).encoded + [0],
        // Two entries of one generation.
        { () -> [UInt8] in
            var bytes = RestoreAttemptRecord(attemptsByGeneration: [7: 1, 9: 1]).encoded
            bytes.replaceSubrange(24..<32, with: bytes[12..<20])
            let end = bytes.count - 4
            let crc = CRC32C.checksum(Array(bytes[0..<end]))
            bytes.replaceSubrange(end..., with: withUnsafeBytes(of: crc.littleEndian, Array.init))
            return bytes
        }(),
    ] + (0..<24).map { index in
        var bytes = RestoreAttemptRecord(attemptsByGeneration: [9: 1]).encoded
        bytes[index] ^= 0x10
        return bytes
    })
    func damagedCountsOne(bytes: [UInt8]) {
        let record = RestoreAttemptRecord(decoding: bytes)
        #expect(record.isDamaged)
        #expect(record.attempts(forGeneration: 7) == 1)
        #expect(record.attempts(forGeneration: 12) == 1)
        #expect(record.settingAttempts(2, forGeneration: 7) == RestoreAttemptRecord(attemptsByGeneration: [7: 2]))
        #expect(record.settingAttempts(0, forGeneration: 7).isEmpty)
    }
}
