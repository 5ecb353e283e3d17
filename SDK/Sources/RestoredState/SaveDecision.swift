/// A plugin's answer to R6's question, "save now?": the raw values are
/// `restored_save_decision`'s (the descriptor's `save_decision`).
///
/// Beside yes and no, a plugin may answer ``keepLastArchive``: it has nothing
/// to say right now (its app is not there to ask, or not yet), and what was
/// saved is still true. Nothing is written, both archive generations stay,
/// and no warning is logged; `restored-ctl apps` shows `kept`.
public enum SaveDecision: UInt32, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Save: the walk goes on and the archive is written.
    case save = 1
    /// Decline: nothing is written and, in a session that goes on, the last
    /// archive is discarded as stale (the user closed the app). While the
    /// session ends it is kept (``SaveOccasion/endsSession``).
    case decline = 2
    /// Keep what you have: nothing is written, the last archive stays.
    case keepLastArchive = 3

    /// The word the log uses.
    public var description: String {
        switch self {
        case .save: "save"
        case .decline: "decline"
        case .keepLastArchive: "keep the last archive"
        }
    }
}
