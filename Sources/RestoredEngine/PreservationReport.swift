public import RestoredArchive
public import RestoredState

/// What preserving one app did.
public struct PreservationReport: Sendable {
    /// How it ended.
    public enum Outcome: Hashable, Sendable {
        /// The archive was written as this generation.
        case saved(generation: UInt64)
        /// `shouldSaveApplicationState` said no: nothing written, the previous archive discarded (R6).
        case declined
        /// Nothing was written; the previous archive is untouched.
        case failed(String)
        /// Nothing was written and the last archive is kept, as it is meant
        /// to be, for the reason given: a decline while the session ends
        /// finds the apps being killed, not closed by the user (R6).
        case kept(String)
    }

    /// The app.
    public var appID: AppID
    /// How it ended.
    public var outcome: Outcome
    /// The paths of the objects saved, parents first, when the walk ran in
    /// this process (a plugin host reports only ``savedObjectCount``).
    public var savedPaths: [ObjectPath] = []
    /// How many objects were saved.
    public var savedObjectCount = 0
    /// Objects dropped (budget, encode failure, duplicate path), with their subtrees.
    public var droppedPaths: [ObjectPath] = []
    /// Objects skipped because they or an ancestor have no identifier (R1, R2).
    public var skippedWithoutIdentifier = 0
    /// The archive's size in bytes, when saved.
    public var archiveBytes = 0
    /// Whether the plugin handed over a snapshot (R12).
    public var hasSnapshot = false
    /// Problems, each attributed to its object.
    public var issues: [EngineIssue] = []

    /// Creates a report.
    public init(appID: AppID, outcome: Outcome) {
        self.appID = appID
        self.outcome = outcome
    }
}
