import CRestoredSupport

/// CRC-32C (Castagnoli), the checksum of archive files.
///
/// Computed by the C shim `c_restored_crc32c`, with the SSE4.2 instruction
/// where the CPU has it. Pass 0 (the default) to start, or an earlier result
/// to continue over more bytes.
public enum CRC32C {
    /// The CRC-32C of `bytes`, continuing from `crc`.
    public static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        c_restored_crc32c(crc, bytes.baseAddress, bytes.count)
    }

    /// The CRC-32C of `bytes`, continuing from `crc`.
    public static func checksum(_ bytes: [UInt8], continuing crc: UInt32 = 0) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0, continuing: crc) }
    }

    /// The CRC-32C of `bytes` computed by the portable table implementation
    /// only, never the CPU instruction: for tests and benchmarks.
    public static func portableChecksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        c_restored_crc32c_portable(crc, bytes.baseAddress, bytes.count)
    }
}
