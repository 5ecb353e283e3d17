import RestoredArchive
import Testing

/// The record of restore attempts beside an archive (R15), as `docs/archive.md` gives its format.
@Suite("Restore attempt record")
struct RestoreAttemptRecordTests {
    @Test("R15: the record is 24 bytes as documented, and reads back as written")
    func layout() {
        let record = RestoreAttemptRecord(generation: 0x0102_0304_0506_0708, attempts: 3)
        let bytes = record.encoded
        #expect(bytes.count == RestoreAttemptRecord.size)
        #expect(Array(bytes[0..<4]) == Array("RSRA".utf8))
        #expect(Array(bytes[4..<8]) == [1, 0, 0, 0])
        #expect(Array(bytes[8..<12]) == [3, 0, 0, 0])
        #expect(Array(bytes[12..<20]) == [8, 7, 6, 5, 4, 3, 2, 1])
        let crc = CRC32C.checksum(Array(bytes[0..<20]))
        #expect(Array(bytes[20..<24]) == [UInt8(crc & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 24)])
        #expect(RestoreAttemptRecord(decoding: bytes) == record)
    }

    @Test("R15: a record counts for its own generation only")
    func countsForItsGeneration() {
        let record = RestoreAttemptRecord(generation: 7, attempts: 2)
        #expect(record.attempts(forGeneration: 7) == 2)
        #expect(record.attempts(forGeneration: 8) == 0)
    }

    @Test("R15: a record that does not read counts one attempt for any generation", arguments: [
        [], Array("RSRA".utf8), RestoreAttemptRecord(generation: 7, attempts: 0).encoded + [0],
    ] + (0..<RestoreAttemptRecord.size).map { index in
        var bytes = RestoreAttemptRecord(generation: 7, attempts: 0).encoded
        bytes[index] ^= 0x10
        return bytes
    })
    func damagedCountsOne(bytes: [UInt8]) {
        let record = RestoreAttemptRecord(decoding: bytes)
        #expect(record.generation == nil)
        #expect(record.attempts(forGeneration: 7) == 1)
        #expect(record.attempts(forGeneration: 12) == 1)
    }
}
