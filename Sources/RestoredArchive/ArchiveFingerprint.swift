/// A 64-bit fingerprint of an archive's content: what
/// ``Archive/hasSameContent(as:)`` compares (everything but the timestamp,
/// the generation, the restore-attempt counter and the system version).
///
/// A plugin host keeps the fingerprint of the last archive it sent, not the
/// archive, so that autosave's "unchanged" answer costs 16 bytes where the
/// archive held one allocation per object (about half a mebibyte at 1,000
/// objects, in every host, all day).
///
/// The fingerprint is the standard library's `Hasher` (SipHash-1-3, keyed
/// with a random seed per process), so two different contents share it with
/// a chance of about 2^-64 per comparison, and no content can be built to
/// collide with another without the process's key. Fingerprints are compared
/// only within the process that made them; they are never stored.
public struct ArchiveFingerprint: Equatable, Sendable {
    private let value: Int

    /// The fingerprint of `archive`'s content.
    public init(of archive: Archive) {
        var hasher = Hasher()
        hasher.combine(archive.appID.rawValue)
        hasher.combine(archive.appVersion)
        hasher.combine(archive.plugin)
        hasher.combine(archive.ignoresSnapshot)
        Self.combine(archive.appState, into: &hasher)
        hasher.combine(archive.objects.count)
        for object in archive.objects {
            hasher.combine(object.path)
            hasher.combine(object.className)
            hasher.combine(object.restorationClass)
            hasher.combine(object.kind)
            Self.combine(object.state, into: &hasher)
        }
        hasher.combine(archive.snapshot != nil)
        if let snapshot = archive.snapshot {
            hasher.combine(snapshot.mediaType)
            Self.combine(snapshot.data, into: &hasher)
        }
        hasher.combine(archive.droppedObjects)
        hasher.combine(archive.carriedObjects)
        value = hasher.finalize()
    }

    /// Bytes with their count first (so that two fields cannot run into
    /// each other), fed as one block rather than byte by byte.
    private static func combine(_ bytes: [UInt8], into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
