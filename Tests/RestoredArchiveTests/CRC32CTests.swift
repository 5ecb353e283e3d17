import RestoredArchive
import Testing

@Suite("CRC-32C")
struct CRC32CTests {
    @Test("the standard check value: crc32c(\"123456789\") == 0xE3069283")
    func checkValue() {
        let bytes = Array("123456789".utf8)
        #expect(CRC32C.checksum(bytes) == 0xE306_9283)
        bytes.withUnsafeBytes { #expect(CRC32C.portableChecksum($0) == 0xE306_9283) }
    }

    @Test("known vectors (RFC 3720): 32 zero bytes, 32 0xFF bytes, ascending bytes")
    func vectors() {
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
        #expect(CRC32C.checksum([]) == 0)
    }

    @Test("chaining: checksum of a then b continues to the checksum of a + b")
    func chaining() {
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let whole = CRC32C.checksum(data)
        for split in [0, 1, 7, 8, 9, 500, 999, 1000] {
            let first = CRC32C.checksum(Array(data[..<split]))
            #expect(CRC32C.checksum(Array(data[split...]), continuing: first) == whole)
        }
    }

    @Test("the hardware and portable implementations agree at every alignment and length")
    func implementationsAgree() {
        var generator = SystemRandomNumberGenerator()
        let data = (0..<4200).map { _ in UInt8.random(in: 0...255, using: &generator) }
        data.withUnsafeBytes { raw in
            for start in 0..<16 {
                for length in [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 1024, 4096 - 16, 4100] {
                    let slice = UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)])
                    let seed = UInt32(truncatingIfNeeded: length &* 2_654_435_761)
                    #expect(CRC32C.checksum(slice, continuing: seed) == CRC32C.portableChecksum(slice, continuing: seed))
                }
            }
        }
    }
}
