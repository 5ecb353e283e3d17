/// An archive as its file holds it: the bytes, checked in full
/// (``ArchiveCodec/check(_:)``, every byte as a decode reads it, R16), and
/// what its header says.
///
/// The login restore reads archives so: restored hands the bytes to the
/// plugin host, which decodes them once, where decoding every object in
/// restored and encoding it again for the host cost a restore three passes
/// over the archive. The restore's attempt (R15) is counted beside the
/// archive (``RestoreAttemptRecord``), not in it.
public struct EncodedArchive: Hashable, Sendable {
    /// The file's bytes.
    public let bytes: [UInt8]
    /// What its header and first fields say.
    public let seal: ArchiveCodec.Seal

    /// Checks `bytes` in full and keeps them.
    public init(checking bytes: [UInt8]) throws(ArchiveError) {
        seal = try ArchiveCodec.check(bytes)
        self.bytes = bytes
    }

    private init(bytes: [UInt8], seal: ArchiveCodec.Seal) {
        self.bytes = bytes
        self.seal = seal
    }

    /// The app whose archive it is.
    public var appID: AppID { seal.appID }

    /// Its generation.
    public var generation: UInt64 { seal.generation }

    /// The restores counted as started and not finished (R15) in the
    /// header (builds before ``RestoreAttemptRecord`` counted there; the
    /// store's reading gives the count that holds,
    /// ``StoredReading/restoreAttempts``).
    public var restoreAttempts: UInt32 { seal.restoreAttempts }

    /// The same archive with `count` restores counted (R15): the header's
    /// field and the checksum change, nothing else.
    public func withRestoreAttempts(_ count: UInt32) -> EncodedArchive {
        var seal = seal
        seal.restoreAttempts = count
        return EncodedArchive(bytes: ArchiveCodec.restamped(bytes, restoreAttempts: count), seal: seal)
    }

    /// The archive, decoded.
    public func decoded() throws(ArchiveError) -> Archive {
        try ArchiveCodec.decode(bytes)
    }
}
