/// An app's archive as ``ArchiveStore/summary(of:)`` lists it: what its
/// header says, without its objects.
public struct ArchiveSummary: Hashable, Sendable {
    /// The header and first payload fields of the file a restore would read.
    public var seal: ArchiveCodec.Seal
    /// The file they come from.
    public var source: ArchiveStore.Generation
    /// Its size in bytes.
    public var byteCount: Int
    /// Why the current file was passed over, if it was.
    public var problems: [ArchiveProblem]
    /// The seal of the last complete archive kept beside partial ones
    /// (``ArchiveStore/Generation/lastComplete``), if there is one.
    public var lastComplete: ArchiveCodec.Seal?
    /// The restores of the archive counted as started and not finished
    /// (R15): the larger of its header's count and its record's
    /// (``RestoreAttemptRecord``).
    public var restoreAttempts: UInt32
    /// Whether the app's record of restore attempts could not be read (a
    /// damaged file, a symbolic link): it then counts one attempt for every
    /// archive of the app, until a forced restore writes it anew or a
    /// discard removes it.
    public var restoreAttemptRecordIsDamaged: Bool

    /// Creates a summary.
    public init(
        seal: ArchiveCodec.Seal, source: ArchiveStore.Generation, byteCount: Int, problems: [ArchiveProblem] = [],
        lastComplete: ArchiveCodec.Seal? = nil, restoreAttempts: UInt32, restoreAttemptRecordIsDamaged: Bool = false
    ) {
        self.restoreAttempts = restoreAttempts
        self.restoreAttemptRecordIsDamaged = restoreAttemptRecordIsDamaged
        self.seal = seal
        self.source = source
        self.byteCount = byteCount
        self.problems = problems
        self.lastComplete = lastComplete
    }
}
