import RestoredArchive
import Testing

/// The record of restore attempts beside an app's archives (R15), as `docs/archive.md` gives its format.
@Suite("Restore attempt record")
struct RestoreAttemptRecordTests {
    @Test("R15: one archive's record is 24 bytes as documented, two archives' 36, each in a file of 108 padded with zeros; each reads back as written, padded or not")
    func layout() {
        let record = RestoreAttemptRecord(attemptsByGeneration: [0x0102_0304_0506_0708: 3])
        let bytes = record.encoded
        #expect(RestoreAttemptRecord.fileSize == 108)
        #expect(bytes.count == RestoreAttemptRecord.fileSize)
        #expect(Array(bytes[0..<4]) == Array("RSRA".utf8))
        #expect(Array(bytes[4..<8]) == [1, 0, 1, 0])
        #expect(Array(bytes[8..<12]) == [3, 0, 0, 0])
        #expect(Array(bytes[12..<20]) == [8, 7, 6, 5, 4, 3, 2, 1])
        let crc = CRC32C.checksum(Array(bytes[0..<20]))
        #expect(Array(bytes[20..<24]) == [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)])
        #expect(bytes[24...].allSatisfy { $0 == 0 })
        #expect(RestoreAttemptRecord(decoding: bytes) == record)
        #expect(RestoreAttemptRecord(decoding: Array(bytes[0..<24])) == record, "a record without the padding, as the build before wrote it")

        let two = RestoreAttemptRecord(attemptsByGeneration: [9: 1, 4: 2])
        #expect(two.encoded.count == RestoreAttemptRecord.fileSize)
        #expect(two.encoded[36...].allSatisfy { $0 == 0 })
        #expect(Array(two.encoded[8..<20]) == [2, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0], "entries go by generation")
        #expect(RestoreAttemptRecord(decoding: two.encoded) == two)
        #expect(RestoreAttemptRecord(decoding: Array(two.encoded[0..<36])) == two)

        let none = RestoreAttemptRecord()
        #expect(none.encoded.count == RestoreAttemptRecord.fileSize)
        #expect(Array(none.encoded[4..<8]) == [1, 0, 0, 0])
        #expect(RestoreAttemptRecord(decoding: none.encoded).isEmpty, "a file that counts nothing reads as no attempts")
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
        // A record with bytes after it that are not the padding's.
        Array(RestoreAttemptRecord(attemptsByGeneration: [9: 1]).encoded[0..<24]) + [0],
        // The rewrite of a longer record cut short: a shorter one over part of it.
        Array(RestoreAttemptRecord().encoded[0..<12]) + Array(RestoreAttemptRecord(attemptsByGeneration: [9: 1]).encoded[12...]),
        // Two entries of one generation.
        { () -> [UInt8] in
            var bytes = Array(RestoreAttemptRecord(attemptsByGeneration: [7: 1, 9: 1]).encoded[0..<36])
            bytes.replaceSubrange(24..<32, with: bytes[12..<20])
            let end = bytes.count - 4
            let crc = CRC32C.checksum(Array(bytes[0..<end]))
            bytes.replaceSubrange(end..., with: withUnsafeBytes(of: crc.littleEndian, Array.init))
            return bytes
        }(),
    ] + (Array(0..<24) + [24, 60, 107]).map { index in
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
