/// What a read of an ``ArchiveStore`` gives: the archive (`Content`:
/// decoded, or its file's bytes checked in full), which generation it came
/// from, and what was wrong with the newer one if the previous generation
/// had to be used.
public struct StoredReading<Content: Hashable & Sendable>: Hashable, Sendable {
    /// The archive read.
    public var archive: Content
    /// The file it was read from.
    public var source: ArchiveStore.Generation
    /// Problems met on the way, like the current file's checksum mismatch when
    /// `source` is ``ArchiveStore/Generation/previous``. Empty when all was well.
    public var problems: [ArchiveProblem]
    /// The size of the file read, in bytes.
    public var byteCount: Int
    /// The restores of this archive counted as started and not finished
    /// (R15): the larger of its header's count and its record's
    /// (``RestoreAttemptRecord``).
    public var restoreAttempts: UInt32
    /// Whether the app's record of restore attempts could not be read (a
    /// damaged file, a symbolic link): it then counts one attempt for every
    /// archive of the app, until a forced restore writes it anew or a
    /// discard removes it.
    public var restoreAttemptRecordIsDamaged: Bool

    /// Creates a reading.
    public init(
        archive: Content, source: ArchiveStore.Generation, byteCount: Int, problems: [ArchiveProblem] = [],
        restoreAttempts: UInt32, restoreAttemptRecordIsDamaged: Bool
    ) {
        self.archive = archive
        self.source = source
        self.byteCount = byteCount
        self.problems = problems
        self.restoreAttempts = restoreAttempts
        self.restoreAttemptRecordIsDamaged = restoreAttemptRecordIsDamaged
    }
}

/// The result of ``ArchiveStore/read(_:)``: the archive decoded.
public typealias ArchiveReading = StoredReading<Archive>

/// The result of ``ArchiveStore/readEncoded(_:generation:)``: the archive
/// as its file holds it (``EncodedArchive``).
public typealias EncodedArchiveReading = StoredReading<EncodedArchive>

extension StoredReading {
    /// A reading with the restore attempts that hold, as ``ArchiveStore`` counts them.
    init(
        archive: Content, source: ArchiveStore.Generation, byteCount: Int, problems: [ArchiveProblem],
        attempts: (count: UInt32, recordIsDamaged: Bool)
    ) {
        self.init(
            archive: archive, source: source, byteCount: byteCount, problems: problems,
            restoreAttempts: attempts.count, restoreAttemptRecordIsDamaged: attempts.recordIsDamaged
        )
    }
}
