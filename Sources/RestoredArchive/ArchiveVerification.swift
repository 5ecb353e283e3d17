/// The state of the archive files of one app, as ``ArchiveStore/verify(_:)``
/// finds them (for `restored-ctl verify` and the like).
public struct ArchiveVerification: Hashable, Sendable {
    /// The state of one archive file.
    public enum Status: Hashable, Sendable {
        /// There is no such file.
        case absent
        /// The file is a valid archive of this app, of this generation and size in bytes.
        case ok(generation: UInt64, size: Int)
        /// The file is not a valid archive.
        case corrupt(ArchiveError)
        /// The file could not be checked, or belongs to another app.
        case unusable(ArchiveProblem)

        /// Whether the file holds a usable archive.
        public var isOK: Bool {
            if case .ok = self { return true }
            return false
        }
    }

    /// The app verified.
    public var appID: AppID
    /// The current generation's file.
    public var current: Status
    /// The previous generation's file.
    public var previous: Status
    /// The last complete archive kept beside partial ones, usually absent.
    public var lastComplete: Status

    /// Creates a verification report.
    public init(appID: AppID, current: Status, previous: Status, lastComplete: Status = .absent) {
        self.appID = appID
        self.current = current
        self.previous = previous
        self.lastComplete = lastComplete
    }

    /// Whether a restore would find an archive (in either file).
    public var hasUsableArchive: Bool { current.isOK || previous.isOK }
}
