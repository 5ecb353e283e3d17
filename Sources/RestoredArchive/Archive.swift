/// Everything preserved for one app: the contents of one archive file.
///
/// ``ArchiveCodec`` turns it into bytes and back; ``ArchiveStore`` keeps it on disk.
public struct Archive: Hashable, Sendable {
    /// The app the archive belongs to.
    public var appID: AppID
    /// The app's version when it was preserved.
    public var appVersion: String
    /// The version of the system (restored and its platform) when it was preserved.
    public var systemVersion: String
    /// When it was preserved: nanoseconds since 1970-01-01 00:00 UTC.
    public var timestamp: Int64
    /// The file name of the plugin that wrote it.
    public var plugin: String
    /// The generation number the store gave it on write: 1, 2, 3 ...
    public var generation: UInt64
    /// Whether the next restore skips the snapshot (R12).
    public var ignoresSnapshot: Bool
    /// Restores started and not finished since the last save (R15).
    public var restoreAttempts: UInt32
    /// The app-wide keyed container of the delegate: opaque bytes to this module.
    public var appState: [UInt8]
    /// The preserved objects, parents before children.
    public var objects: [ArchivedObject]
    /// The preview shown before the app is back, if any (R12).
    public var snapshot: Snapshot?
    /// The objects the save left out, with why: an archive that lists any
    /// is *partial* (R5, R13), and the store keeps the last complete one
    /// beside it (``ArchiveStore/Generation/lastComplete``).
    public var droppedObjects: [OmittedObject]
    /// The objects this save carried over from the archive before it, each
    /// with its subtree (in ``objects``, once restored wrote the archive).
    public var carriedObjects: [CarriedObject]

    /// Whether the save left objects out.
    public var isPartial: Bool { !droppedObjects.isEmpty }

    /// Creates an archive.
    public init(
        appID: AppID,
        appVersion: String = "",
        systemVersion: String = "",
        timestamp: Int64 = 0,
        plugin: String = "",
        generation: UInt64 = 0,
        ignoresSnapshot: Bool = false,
        restoreAttempts: UInt32 = 0,
        appState: [UInt8] = [],
        objects: [ArchivedObject] = [],
        snapshot: Snapshot? = nil,
        droppedObjects: [OmittedObject] = [],
        carriedObjects: [CarriedObject] = []
    ) {
        self.appID = appID
        self.appVersion = appVersion
        self.systemVersion = systemVersion
        self.timestamp = timestamp
        self.plugin = plugin
        self.generation = generation
        self.ignoresSnapshot = ignoresSnapshot
        self.restoreAttempts = restoreAttempts
        self.appState = appState
        self.objects = objects
        self.snapshot = snapshot
        self.droppedObjects = droppedObjects
        self.carriedObjects = carriedObjects
    }
}
