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
        /// to be, for the reason given: the plugin's third answer to R6
        /// ("keep what you have": nothing to say now), or a decline while
        /// the session ends, which finds the apps being killed, not closed
        /// by the user.
        case kept(String)
    }

    /// The reason of a ``Outcome/kept(_:)`` the plugin answered itself.
    public static let keptByPlugin = "its plugin has nothing new to say now and keeps the last archive"

    /// The app.
    public var appID: AppID
    /// How it ended.
    public var outcome: Outcome
    /// The paths of the objects saved, parents first, when the walk ran in
    /// this process (a plugin host reports only ``savedObjectCount``).
    public var savedPaths: [ObjectPath] = []
    /// How many objects were saved.
    public var savedObjectCount = 0
    /// What the save left out, each with why: objects dropped with their
    /// subtrees (budget, encode failure, reserved key, duplicate path) and
    /// the app-wide state (empty path). Any makes the save *partial*.
    public var droppedObjects: [OmittedObject] = []
    /// The objects carried over from the app's last archive, each with its
    /// subtree and the time it was saved (the plugin could not say them
    /// now); with their subtrees they are counted in ``savedObjectCount``,
    /// not listed in ``savedPaths``.
    public var carriedObjects: [CarriedObject] = []
    /// The generation of the last complete archive the store keeps beside
    /// a partial one (``ArchiveStore/Generation/lastComplete``), when known.
    public var lastCompleteGeneration: UInt64?
    /// Objects skipped because they or an ancestor have no identifier (R1, R2).
    public var skippedWithoutIdentifier = 0
    /// The archive's size in bytes, when saved.
    public var archiveBytes = 0
    /// Whether the plugin handed over a snapshot (R12).
    public var hasSnapshot = false
    /// Problems, each attributed to its object.
    public var issues: [EngineIssue] = []

    /// Whether the save was written but left something out.
    public var isPartial: Bool {
        if case .saved = outcome { return !droppedObjects.isEmpty }
        return false
    }

    /// Creates a report.
    public init(appID: AppID, outcome: Outcome) {
        self.appID = appID
        self.outcome = outcome
    }
}
