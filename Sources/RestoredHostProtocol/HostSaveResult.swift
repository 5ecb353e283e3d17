public import RestoredEngine

/// The result of a save, as the helper hands it over.
public struct HostSaveResult: Sendable {
    /// Names this archive for a later ``HostSaveRequest/unlessSameAs``.
    public var token: UInt64
    /// The archive (file format, generation 0), when the app is to be saved.
    public var archive: [UInt8]?
    /// The walk's report; its outcome is `saved` (to be written), `declined` or `failed`.
    public var report: PreservationReport

    /// Creates a result.
    public init(token: UInt64, archive: [UInt8]?, report: PreservationReport) {
        self.token = token
        self.archive = archive
        self.report = report
    }
}
