/// The restores of one archive counted as started and not finished (R15),
/// kept beside the archive in a small file of its own, `archive.attempts`.
///
/// A restore counts its attempt before the plugin runs and takes it back
/// when the walk finishes. Counted in the archive's header, each restore
/// rewrote the whole archive twice, durably: two copies, two checksums and
/// two flushes of every app's archive at every login, most of restored's
/// share of the login restore. This record is 24 bytes.
///
/// The record names the generation it counts for: a record of another
/// generation (an older archive's, left by a restore that never finished
/// before a newer save) counts nothing for the archive read. The count an
/// archive's header holds (written by builds before this record) still
/// counts: an archive's attempts are the larger of the two.
///
/// The file: the magic `RSRA`, the format version (1) and a reserved zero
/// (16-bit each), the count (32-bit), the generation (64-bit), and the
/// CRC-32C of those 20 bytes; little-endian. A record that does not read
/// so (a damaged disk, a hand-made file) counts one attempt for whatever
/// archive is read: R15 errs on the side of not running a restore that may
/// crash again, and the archive is kept for a manual `restored-ctl restore`.
public struct RestoreAttemptRecord: Hashable, Sendable {
    /// The record's name in the app's directory.
    public static let fileName = "archive.attempts"
    /// The record's size in bytes.
    public static let size = 24
    /// The first four bytes.
    private static let magic: [UInt8] = Array("RSRA".utf8)
    /// The format this build writes and reads.
    private static let version: UInt16 = 1

    /// The generation of the archive the attempts count for; nil for a
    /// record that could not be read, which counts for any.
    public var generation: UInt64?
    /// The restores started and not finished.
    public var attempts: UInt32

    /// A record of `attempts` restores of the archive of `generation`.
    public init(generation: UInt64, attempts: UInt32) {
        self.generation = generation
        self.attempts = attempts
    }

    /// Reads a record from its file's bytes; a record that does not read
    /// counts one attempt for any generation.
    public init(decoding bytes: [UInt8]) {
        guard bytes.count == Self.size, Array(bytes[0..<4]) == Self.magic,
              Self.load(UInt16.self, bytes, 4) == Self.version,
              Self.load(UInt32.self, bytes, 20) == CRC32C.checksum(Array(bytes[0..<20]))
        else {
            self.generation = nil
            self.attempts = 1
            return
        }
        self.attempts = Self.load(UInt32.self, bytes, 8)
        self.generation = Self.load(UInt64.self, bytes, 12)
    }

    /// The file's bytes (a record made by ``init(generation:attempts:)``).
    public var encoded: [UInt8] {
        var bytes = Self.magic
        bytes.reserveCapacity(Self.size)
        func append<Value: FixedWidthInteger>(_ value: Value) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(Self.version)
        append(UInt16(0))
        append(attempts)
        append(generation ?? 0)
        append(CRC32C.checksum(bytes))
        return bytes
    }

    /// The attempts this record counts for the archive of `generation`.
    public func attempts(forGeneration generation: UInt64) -> UInt32 {
        guard self.generation == nil || self.generation == generation else { return 0 }
        return attempts
    }

    private static func load<Value: FixedWidthInteger>(_ type: Value.Type, _ bytes: [UInt8], _ offset: Int) -> Value {
        bytes.withUnsafeBytes { Value(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Value.self)) }
    }
}
