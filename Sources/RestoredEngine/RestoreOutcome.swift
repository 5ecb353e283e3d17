/// How a restore ended, in the one word the admin API (`ListApps`'
/// `LastOutcome`, the `AppRestored` signal) and `restored-ctl` use.
public enum RestoreOutcome: String, Hashable, Sendable, CaseIterable {
    /// The app's state was read back into it.
    case restored
    /// Nothing saved yet.
    case noArchive = "no-archive"
    /// Neither archive file could be used.
    case unusableArchive = "unusable-archive"
    /// The last restore never finished (R15).
    case skipped
    /// The app asked not to be restored (R7).
    case declined
    /// The restore went wrong.
    case failed
    /// restored restarted during the session: the app is live, nothing was
    /// restored into it.
    case live

    /// Whether the user should look at it.
    public var isFailure: Bool { self == .failed || self == .unusableArchive || self == .skipped }
}

extension RestorationReport.Outcome {
    /// The outcome's word.
    public var word: RestoreOutcome {
        switch self {
        case .restored: .restored
        case .noArchive: .noArchive
        case .unusableArchive: .unusableArchive
        case .skippedAfterFailedAttempt: .skipped
        case .declined: .declined
        case .failed: .failed
        case .skippedLiveApp: .live
        }
    }
}
