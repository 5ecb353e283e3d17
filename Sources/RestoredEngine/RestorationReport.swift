public import RestoredArchive
public import RestoredState

/// What restoring one app did.
public struct RestorationReport: Sendable {
    /// How it ended.
    public enum Outcome: Hashable, Sendable {
        /// The walk ran to its end (individual objects may still be listed as not restored).
        case restored
        /// There is no archive for the app (R7).
        case noArchive
        /// Neither generation of the archive is readable (R7, R16); the files are kept.
        case unusableArchive(String)
        /// The last restore started and never finished, so this automatic one
        /// was skipped; the archive is kept for a forced restore (R15).
        /// `recordIsDamaged`: the app's record of attempts could not be
        /// read, which counts as one such restore.
        case skippedAfterFailedAttempt(attempts: UInt32, recordIsDamaged: Bool)
        /// `shouldRestoreApplicationState` said no (R7).
        case declined
        /// A plugin callback failed before the objects could be restored.
        case failed(String)
        /// restored started again while the session runs and the app is
        /// live: nothing is restored into it, the archive is kept
        /// (``RestoreReason/recovery``).
        case skippedLiveApp
    }

    /// What happened to the snapshot (R12).
    public enum SnapshotOutcome: Hashable, Sendable {
        /// The archive has none.
        case none
        /// It was handed to the plugin.
        case presented
        /// The archive's ignore-snapshot flag skipped it.
        case ignored
    }

    /// The app.
    public var appID: AppID
    /// How it ended.
    public var outcome: Outcome
    /// The generation read, and whether it was the previous one.
    public var generation: UInt64?
    /// Whether the newest generation was unreadable and the previous one was used.
    public var usedPreviousGeneration = false
    /// Objects located or created and restored, parents first.
    public var restoredPaths: [ObjectPath] = []
    /// How many objects were restored (a plugin host reports only this, not ``restoredPaths``).
    public var restoredObjectCount = 0
    /// Objects not restored, each with why (declined by their restoration
    /// class, not found, malformed state, an error locating them).
    public var notRestored: [OmittedObject] = []
    /// Objects used but not decoded because their class changed (R10).
    public var classMismatchPaths: [ObjectPath] = []
    /// The snapshot's fate.
    public var snapshot: SnapshotOutcome = .none
    /// Problems, each attributed to its object.
    public var issues: [EngineIssue] = []

    /// Creates a report.
    public init(appID: AppID, outcome: Outcome) {
        self.appID = appID
        self.outcome = outcome
    }
}
