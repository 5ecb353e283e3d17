/// How a save ended, in the one word the admin API (`ListApps`'
/// `LastOutcome`, the `AppSaved` signal) and `restored-ctl` use.
public enum SaveOutcome: String, Hashable, Sendable, CaseIterable {
    /// Written as a new generation.
    case saved
    /// The app's `should_save` said no; its archive was discarded (R6).
    case declined
    /// Not written; the previous archive is kept.
    case failed
    /// Not written, and nothing went wrong: the last archive is kept (a
    /// decline while the session ends).
    case kept

    /// Whether the user should look at it.
    public var isFailure: Bool { self == .failed }
}

extension PreservationReport.Outcome {
    /// The outcome's word.
    public var word: SaveOutcome {
        switch self {
        case .saved: .saved
        case .declined: .declined
        case .failed: .failed
        case .kept: .kept
        }
    }
}
