/// The result of ``ArchiveStore/read(_:)``: the archive, which generation it
/// came from, and what was wrong with the newer one if the previous
/// generation had to be used.
public struct ArchiveReading: Hashable, Sendable {
    /// The archive read.
    public var archive: Archive
    /// The file it was read from.
    public var source: ArchiveStore.Generation
    /// Problems met on the way, like the current file's checksum mismatch when
    /// `source` is ``ArchiveStore/Generation/previous``. Empty when all was well.
    public var problems: [ArchiveProblem]
    /// The size of the file read, in bytes.
    public var byteCount: Int

    /// Creates a reading.
    public init(archive: Archive, source: ArchiveStore.Generation, byteCount: Int, problems: [ArchiveProblem] = []) {
        self.archive = archive
        self.source = source
        self.byteCount = byteCount
        self.problems = problems
    }
}
