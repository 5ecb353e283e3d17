/// The result of ``ArchiveStore/readEncoded(_:generation:)``: the archive as
/// its file holds it, checked in full, which generation it came from, and
/// what was wrong with the newer one if the previous generation had to be used.
public struct EncodedArchiveReading: Hashable, Sendable {
    /// The archive read, as its bytes.
    public var archive: EncodedArchive
    /// The file it was read from.
    public var source: ArchiveStore.Generation
    /// Problems met on the way (see ``ArchiveReading/problems``).
    public var problems: [ArchiveProblem]
    /// The size of the file read, in bytes.
    public var byteCount: Int

    /// Creates a reading.
    public init(archive: EncodedArchive, source: ArchiveStore.Generation, byteCount: Int, problems: [ArchiveProblem] = []) {
        self.archive = archive
        self.source = source
        self.byteCount = byteCount
        self.problems = problems
    }
}
