/// The restores of an app's archives counted as started and not finished
/// (R15), kept beside them in a small file of their own, `archive.attempts`.
///
/// A restore counts its attempt before the plugin runs and takes it back
/// when the walk finishes. Counted in the archive's header, each restore
/// rewrote the whole archive twice, durably: two copies, two checksums and
/// two flushes of every app's archive at every login, most of restored's
/// share of the login restore. The record is 24 bytes for one archive,
/// in a file of 108 (``fileSize``).
///
/// The record counts per generation: a restore of one archive (the last
/// complete one, the previous generation) never changes another's count,
/// and a newer save, a new generation, starts with none. At most
/// ``maximumEntries`` generations are kept; past that, the oldest are
/// forgotten (an app whose restores of eight archives never finished).
/// The count an archive's header holds (written by builds before this
/// record) still counts: an archive's attempts are the larger of the two.
///
/// The file: the magic `RSRA`, the format version (1) and the number of
/// entries (16-bit each), each entry's count (32-bit) and generation
/// (64-bit), and the CRC-32C of everything before it; little-endian; then
/// zero bytes up to ``fileSize``. Every record fills the same
/// ``fileSize`` bytes, so the file is rewritten in place, its size never
/// changing, and stays when it counts nothing: a restore writes one block
/// and flushes it, twice, where a new file and a removal cost the file
/// system an inode, a rename and two flushes of the directory each (see
/// ``ArchiveStore/setRestoreAttempts(_:for:)``). A record without the
/// padding (written before it) reads the same.
///
/// A record that does not read so (a damaged disk, a hand-made file, a
/// rewrite cut short by a power cut) counts one attempt for whatever
/// archive is read: R15 errs on the side of not running a restore that
/// may crash again, and the archive is kept for a manual
/// `restored-ctl restore --force`, which writes the record anew.
public struct RestoreAttemptRecord: Hashable, Sendable {
    /// The record's name in the app's directory.
    public static let fileName = "archive.attempts"
    /// The most generations a record keeps.
    public static let maximumEntries = 8
    /// The largest record, in bytes.
    public static let maximumSize = headerSize + maximumEntries * entrySize + 4
    /// The size of the file every record is written as: the largest
    /// record, so that a rewrite never changes it.
    public static let fileSize = maximumSize
    private static let headerSize = 8
    private static let entrySize = 12
    private static let magic: [UInt8] = Array("RSRA".utf8)
    /// The format this build writes and reads.
    private static let version: UInt16 = 1

    /// The attempts counted, by the generation of the archive they count
    /// for; never 0 (an archive without attempts has no entry).
    public private(set) var attemptsByGeneration: [UInt64: UInt32]
    /// Whether the file did not read as a record: it counts one attempt
    /// for any generation.
    public private(set) var isDamaged: Bool

    /// A record of `attemptsByGeneration` (entries of 0 are left out).
    public init(attemptsByGeneration: [UInt64: UInt32] = [:]) {
        self.attemptsByGeneration = attemptsByGeneration.filter { $0.value > 0 }
        self.isDamaged = false
    }

    /// Reads a record from its file's bytes; bytes that do not read as one
    /// make a damaged record.
    public init(decoding bytes: [UInt8]) {
        self.init()
        guard let entries = Self.entries(bytes) else {
            isDamaged = true
            return
        }
        attemptsByGeneration = entries
    }

    /// Whether the record counts nothing (and is not damaged).
    public var isEmpty: Bool { !isDamaged && attemptsByGeneration.isEmpty }

    /// The attempts this record counts for the archive of `generation`.
    public func attempts(forGeneration generation: UInt64) -> UInt32 {
        isDamaged ? 1 : attemptsByGeneration[generation] ?? 0
    }

    /// This record with `count` attempts for the archive of `generation`
    /// (0: none), the others kept. A damaged record's unknown counts are
    /// dropped; past ``maximumEntries``, the oldest generations are.
    public func settingAttempts(_ count: UInt32, forGeneration generation: UInt64) -> RestoreAttemptRecord {
        var counts = isDamaged ? [:] : attemptsByGeneration
        counts[generation] = count > 0 ? count : nil
        while counts.count > Self.maximumEntries, let oldest = counts.keys.filter({ $0 != generation }).min() {
            counts[oldest] = nil
        }
        return RestoreAttemptRecord(attemptsByGeneration: counts)
    }

    /// The file's bytes: the record, entries by generation (a damaged
    /// record encodes as no entries), then zeros up to ``fileSize``.
    public var encoded: [UInt8] {
        let entries = isDamaged ? [] : attemptsByGeneration.sorted { $0.key < $1.key }
        var bytes = Self.magic
        bytes.reserveCapacity(Self.fileSize)
        func append<Value: FixedWidthInteger>(_ value: Value) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(Self.version)
        append(UInt16(entries.count))
        for (generation, attempts) in entries {
            append(attempts)
            append(generation)
        }
        append(CRC32C.checksum(bytes))
        bytes.append(contentsOf: repeatElement(0, count: Self.fileSize - bytes.count))
        return bytes
    }

    /// The entries of a well-formed record, or nil.
    private static func entries(_ bytes: [UInt8]) -> [UInt64: UInt32]? {
        guard bytes.count >= headerSize + 4, bytes.count <= maximumSize, Array(bytes[0..<4]) == magic,
              load(UInt16.self, bytes, 4) == version
        else { return nil }
        let count = Int(load(UInt16.self, bytes, 6))
        let end = headerSize + count * entrySize
        // The record, then nothing or zeros up to the file's size.
        guard count <= maximumEntries, bytes.count == end + 4 || (bytes.count == fileSize && !bytes[(end + 4)...].contains { $0 != 0 }),
              load(UInt32.self, bytes, end) == CRC32C.checksum(Array(bytes[0..<end]))
        else { return nil }
        var entries: [UInt64: UInt32] = [:]
        for index in 0..<count {
            let offset = headerSize + index * entrySize
            let generation = load(UInt64.self, bytes, offset + 4)
            guard entries[generation] == nil else { return nil }
            entries[generation] = load(UInt32.self, bytes, offset)
        }
        return entries.filter { $0.value > 0 }
    }

    private static func load<Value: FixedWidthInteger>(_ type: Value.Type, _ bytes: [UInt8], _ offset: Int) -> Value {
        bytes.withUnsafeBytes { Value(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Value.self)) }
    }
}
