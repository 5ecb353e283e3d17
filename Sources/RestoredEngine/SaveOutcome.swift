/// How a save ended, in the one word the admin API (`ListApps`'
/// `LastOutcome`, the `AppSaved` signal) and `restored-ctl` use.
public enum SaveOutcome: String, Hashable, Sendable, CaseIterable {
    /// Written as a new generation.
    case saved
    /// Written as a new generation that left objects out (their paths and
    /// reasons go with it); the last complete archive is kept beside it.
    case partial
    /// The app's `should_save` said no; its archive was discarded (R6).
    case declined
    /// Not written; the previous archive is kept.
    case failed
    /// Not written, and nothing went wrong: the last archive is kept (the
    /// plugin's "keep what you have", or a decline while the session ends).
    case kept

    /// Whether the user should look at it.
    public var isFailure: Bool { self == .failed || self == .partial }
}

extension PreservationReport {
    /// The outcome's word: ``SaveOutcome/partial`` for a save that left
    /// objects out.
    public var word: SaveOutcome {
        switch outcome {
        case .saved: isPartial ? .partial : .saved
        case .declined: .declined
        case .failed: .failed
        case .kept: .kept
        }
    }
}
