public import Foundation
import RestoredArchive

/// The archive as `restored-ctl show --json` prints it: what `show` draws,
/// without the values (`dump` has those).
///
/// JSON shape: `app`, `generation`, `generationFile`, `size`, `time`,
/// `appVersion`, `systemVersion`, `plugin`, `ignoreSnapshot`,
/// `restoreAttempts`, `restoreAttemptRecordDamaged` (the record of
/// attempts cannot be read, and counts one), `snapshot` (null, or
/// `mediaType` and `size`),
/// `problems` (lines), `partial`, `leftOut` (the objects the save left
/// out, each `path` and `reason`), `lastCompleteGeneration` (null, or the
/// last complete archive kept beside a partial one), `notRestored` (what
/// the daemon's last restore did not restore, each `path` and `reason`),
/// `appState` (keys), `objects` (each `path`, `className`,
/// `restorationClass`, `kind`, `keys`); a key is `key`, `type` and `size`.
public struct ArchiveOutline: Encodable, Sendable {
    /// One object.
    public struct Object: Encodable, Sendable {
        /// Its restoration path.
        public let path: String
        /// Its class.
        public let className: String
        /// Its restoration class, if any.
        @NullEncoded public var restorationClass: String?
        /// `child`, `presented` or `manual`.
        public let kind: String
        /// Its keys, or nil when its state cannot be read.
        @NullEncoded public var keys: [StateKey]?
    }

    /// An object carried over from the archive before.
    public struct CarriedOver: Encodable, Sendable {
        /// Its restoration path (its subtree is carried with it).
        public let path: String
        /// When its state was saved; nil when unknown.
        @NullEncoded public var savedAt: Date?
    }

    /// The snapshot's kind and size.
    public struct SnapshotOutline: Encodable, Hashable, Sendable {
        /// Its media type.
        public let mediaType: String
        /// Its size in bytes.
        public let size: Int
    }

    /// The app id.
    public let app: String
    /// The generation read.
    public let generation: UInt64
    /// The file read: `archive` or `archive.previous`.
    public let generationFile: String
    /// The file's size in bytes.
    public let size: Int
    /// When it was written.
    @NullEncoded public var time: Date?
    /// The app's version when saved.
    public let appVersion: String
    /// The system's version when saved.
    public let systemVersion: String
    /// The plugin file that wrote it.
    public let plugin: String
    /// The ignore-snapshot flag (R12).
    public let ignoreSnapshot: Bool
    /// Restores started and never finished (R15).
    public let restoreAttempts: UInt32
    /// Whether the app's record of restore attempts cannot be read.
    public let restoreAttemptRecordDamaged: Bool
    /// The snapshot's kind and size, if any.
    @NullEncoded public var snapshot: SnapshotOutline?
    /// Why the current file was passed over, if it was.
    public let problems: [String]
    /// Whether the save left objects out.
    public let partial: Bool
    /// What the save left out, with why.
    public let leftOut: [AppRecord.LeftOut]
    /// The objects carried over from the archive before, each with the
    /// time its state was saved.
    public let carriedOver: [CarriedOver]
    /// The last complete archive kept beside a partial one.
    @NullEncoded public var lastCompleteGeneration: UInt64?
    /// What the last restore did not restore, with why.
    public let notRestored: [AppRecord.LeftOut]
    /// The app-wide keys, or nil when unreadable.
    @NullEncoded public var appState: [StateKey]?
    /// The objects, parents first.
    public let objects: [Object]

    /// The outline of a reading.
    public init(_ inspection: ArchiveInspection) {
        let reading = inspection.reading
        let archive = reading.archive
        app = archive.appID.rawValue
        generation = archive.generation
        generationFile = reading.source.fileName
        size = reading.byteCount
        time = Timestamps.date(nanoseconds: archive.timestamp)
        appVersion = archive.appVersion
        systemVersion = archive.systemVersion
        plugin = archive.plugin
        ignoreSnapshot = archive.ignoresSnapshot
        restoreAttempts = reading.restoreAttempts
        restoreAttemptRecordDamaged = reading.restoreAttemptRecordIsDamaged
        snapshot = archive.snapshot.map { SnapshotOutline(mediaType: $0.mediaType, size: $0.data.count) }
        problems = reading.problems.map(\.description)
        partial = archive.isPartial
        leftOut = archive.droppedObjects.map { AppRecord.LeftOut(path: $0.pathText, reason: $0.reason) }
        carriedOver = archive.carriedObjects.map { CarriedOver(path: $0.path.description, savedAt: Timestamps.date(nanoseconds: $0.since)) }
        lastCompleteGeneration = inspection.lastCompleteGeneration
        notRestored = inspection.notRestored
        appState = try? StateKey.keys(of: archive.appState)
        objects = archive.objects.map { object in
            Object(
                path: object.path.description, className: object.className, restorationClass: object.restorationClass,
                kind: object.kind.name,
                keys: try? StateKey.keys(of: object.state)
            )
        }
    }
}
