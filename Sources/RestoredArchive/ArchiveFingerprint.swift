/// A 64-bit fingerprint of an archive's content: what
/// ``Archive/hasSameContent(as:)`` compares (everything but the timestamp,
/// the generation, the restore-attempt counter and the system version),
/// read from the archive's encoded bytes.
///
/// A plugin host keeps the fingerprint of the last archive it sent, not the
/// archive, so that autosave's "unchanged" answer costs 16 bytes where the
/// archive held one allocation per object (about half a mebibyte at 1,000
/// objects, in every host, all day). It is made from the archive's encoded
/// bytes, in one pass (0.12 ms for 270 KB): those of a save are sent
/// anyway; an autosave encodes its archive to compare it (about 0.3 ms per
/// 1,000 objects, where the archives were compared field by field). The
/// encoding holds each content field once, each with its length, so equal
/// bytes are equal content; equal content is equal bytes but for strings
/// Swift compares as equal in another Unicode normalization, which only
/// costs an autosave a write.
///
/// The fingerprint is the standard library's `Hasher` (SipHash-1-3, keyed
/// with a random seed per process), so two different contents share it with
/// a chance of about 2^-64 per comparison, and no content can be built to
/// collide with another without the process's key. Fingerprints are compared
/// only within the process that made them; they are never stored.
public struct ArchiveFingerprint: Equatable, Sendable {
    private let value: Int

    /// The fingerprint of the archive `encoded` holds, as
    /// ``ArchiveCodec/encode(_:)`` wrote it.
    public init(ofEncoded encoded: [UInt8]) {
        var hasher = Hasher()
        encoded.withUnsafeBytes { bytes in
            // Bytes that are not an encoded archive are fed whole.
            guard let ranges = ArchiveCodec.contentRanges(of: bytes) else {
                hasher.combine(bytes: bytes)
                return
            }
            for range in ranges {
                hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: bytes[range]))
            }
        }
        value = hasher.finalize()
    }
}
