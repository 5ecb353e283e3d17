public import Foundation
public import RestoredArchive
public import RestoredEngine
import RestoredDBus

/// One app as `restored-ctl apps` shows it: from the daemon's `ListApps`,
/// or read from the archives when the daemon is not running.
///
/// JSON shape (`apps --json`): `app`, `plugin` (file or null), `saving`
/// (trigger or null), `restoring`, `hasArchive`, `generation`, `generationFile`,
/// `archiveTime` (ISO 8601 or null), `archiveSize`, `ignoreSnapshot`,
/// `restoreAttempts`, `restoreAttemptRecordDamaged` (the record of attempts
/// cannot be read, and counts one), `problem` (or null), `partial` (the archive a restore
/// would read left objects out), `lastComplete` (null, or the `generation`
/// and `time` of the last complete archive kept beside partial ones),
/// `last` (null, or `action`, `trigger`, `outcome`, `detail`, `time`,
/// `objects`: each object the save left out or the restore did not
/// restore, as `path` and `reason`).
public struct AppRecord: Encodable, Hashable, Sendable {
    /// An object a save left out or a restore did not restore.
    public struct LeftOut: Encodable, Hashable, Sendable {
        /// Its restoration path (`(app-wide state)` for the delegate's state).
        public var path: String
        /// Why.
        public var reason: String
    }

    /// The last complete archive, kept while newer saves are partial.
    public struct LastComplete: Encodable, Hashable, Sendable {
        /// Its generation.
        public var generation: UInt64
        /// When it was written.
        @NullEncoded public var time: Date?
    }

    /// The app's last save or restore, as the daemon reports it.
    public struct LastResult: Encodable, Hashable, Sendable {
        /// `save` or `restore`.
        public var action: String
        /// What caused it (`sleep`, `login`, `request` ...).
        public var trigger: String
        /// One word: `saved`, `restored`, `failed` ...
        public var outcome: String
        /// More for people.
        public var detail: String
        /// When it ended.
        @NullEncoded public var time: Date?
        /// What it left out (save) or did not restore (restore), with why.
        public var objects: [LeftOut] = []

        /// The action and outcome as this build knows them; nil for words
        /// of a newer restored.
        public var known: ActivityOutcome? { ActivityOutcome(action: action, word: outcome) }

        /// Whether it went wrong in a way the user should look at.
        public var isFailure: Bool { known?.isFailure ?? false }
    }

    /// The app id.
    public var app: String
    /// The plugin file serving it, if one is loaded.
    @NullEncoded public var plugin: String?
    /// The trigger of a save under way.
    @NullEncoded public var saving: String?
    /// Whether a restore is under way.
    public var restoring: Bool
    /// Whether a usable archive is stored.
    public var hasArchive: Bool
    /// The generation a restore would read.
    @NullEncoded public var generation: UInt64?
    /// `archive` or `archive.previous`.
    @NullEncoded public var generationFile: String?
    /// When the archive was written.
    @NullEncoded public var archiveTime: Date?
    /// The archive file's size in bytes.
    @NullEncoded public var archiveSize: UInt64?
    /// The archive's ignore-snapshot flag (R12).
    public var ignoreSnapshot: Bool
    /// Restores started and never finished (R15).
    public var restoreAttempts: UInt32
    /// Whether the app's record of restore attempts cannot be read (it
    /// counts one attempt until a forced restore writes it anew).
    public var restoreAttemptRecordDamaged = false
    /// Why the archive is unusable, or why the current file was passed over.
    @NullEncoded public var problem: String?
    /// Whether the archive a restore would read left objects out.
    public var partial = false
    /// The last complete archive kept beside partial ones, if any.
    @NullEncoded public var lastComplete: LastComplete?
    /// The last save or restore since the daemon started.
    @NullEncoded public var last: LastResult?

    /// A row of the daemon's `ListApps`.
    init(daemonRow fields: [String: DBusValue]) {
        func string(_ key: String) -> String? {
            guard let value = fields[key]?.stringValue, !value.isEmpty else { return nil }
            return value
        }
        app = string("App") ?? ""
        plugin = string("Plugin")
        saving = string("Saving")
        restoring = fields["Restoring"]?.boolValue ?? false
        hasArchive = fields["HasArchive"]?.boolValue ?? false
        generation = hasArchive ? fields["Generation"]?.uint64Value : nil
        generationFile = hasArchive ? string("GenerationFile") : nil
        archiveTime = hasArchive ? fields["ArchiveTime"]?.int64Value.flatMap { Timestamps.date(microseconds: $0) } : nil
        archiveSize = hasArchive ? fields["ArchiveSize"]?.uint64Value : nil
        ignoreSnapshot = fields["IgnoreSnapshot"]?.boolValue ?? false
        restoreAttempts = UInt32(fields["RestoreAttempts"]?.uint64Value ?? 0)
        restoreAttemptRecordDamaged = hasArchive && (fields["RestoreAttemptRecordDamaged"]?.boolValue ?? false)
        problem = string("Problem")
        partial = hasArchive && (fields["Partial"]?.boolValue ?? false)
        if let generation = fields["LastComplete"]?.uint64Value, generation > 0 {
            lastComplete = LastComplete(generation: generation, time: fields["LastCompleteTime"]?.int64Value.flatMap { Timestamps.date(microseconds: $0) })
        }
        if let action = string("LastAction") {
            last = LastResult(
                action: action, trigger: string("LastTrigger") ?? "", outcome: string("LastOutcome") ?? "",
                detail: string("LastDetail") ?? "", time: fields["LastTime"]?.int64Value.flatMap { Timestamps.date(microseconds: $0) },
                objects: (fields["LastObjects"]?.arrayValue ?? []).compactMap { row in
                    guard let pair = row.structureValue, pair.count == 2, let path = pair[0].stringValue, let reason = pair[1].stringValue else { return nil }
                    return LeftOut(path: path, reason: reason)
                }
            )
        }
    }

    /// An app read from the store's headers (``ArchiveStore/summary(of:)``).
    public init(appID: AppID, store: ArchiveStore) {
        app = appID.rawValue
        restoring = false
        ignoreSnapshot = false
        restoreAttempts = 0
        do throws(ArchiveStoreError) {
            let summary = try store.summary(of: appID)
            hasArchive = true
            generation = summary.seal.generation
            generationFile = summary.source.fileName
            archiveTime = Timestamps.date(nanoseconds: summary.seal.timestamp)
            archiveSize = UInt64(summary.byteCount)
            ignoreSnapshot = summary.seal.ignoresSnapshot
            restoreAttempts = summary.restoreAttempts
            restoreAttemptRecordDamaged = summary.restoreAttemptRecordIsDamaged
            problem = summary.problems.isEmpty ? nil : summary.problems.map(\.description).joined(separator: "; ")
            partial = summary.seal.isPartial
            lastComplete = summary.lastComplete.map { LastComplete(generation: $0.generation, time: Timestamps.date(nanoseconds: $0.timestamp)) }
        } catch {
            hasArchive = false
            if case .noArchive = error {} else { problem = error.description }
        }
    }

    /// The last result in a few words: `saved (sleep)`, `restored (login)`,
    /// `save failed: reason`, `partial (autosave): 1 object left out`; what
    /// runs now first while a restore or a save is under way (`restoring
    /// now`, `saving now (sleep)`), with the last result after it if there is one.
    public var lastResultSummary: String {
        let now = restoring ? "restoring now" : saving.map { "saving now (\($0))" }
        guard let now else { return finishedSummary }
        return last == nil ? now : "\(now); last: \(finishedSummary)"
    }

    /// The last result that ended, in a few words.
    private var finishedSummary: String {
        guard let last else { return partial ? "partial (the archive left objects out: restored-ctl show \(app))" : "-" }
        if last.known == .save(.partial) {
            return "partial (\(last.trigger)): \(last.objects.count) object\(last.objects.count == 1 ? "" : "s") left out"
        }
        return last.isFailure ? "\(last.action) \(last.outcome): \(last.detail)" : "\(last.outcome) (\(last.trigger))"
    }

    /// Lines for people under the table of `restored-ctl apps`: each object
    /// the last save left out or the last restore did not restore, with why,
    /// and the way back to the last complete archive.
    public var leftOutLines: [String] {
        var lines: [String] = []
        if let last, !last.objects.isEmpty {
            let verb = last.action == "save" ? "left out by its last save" : "not restored by its last restore"
            for object in last.objects { lines.append("\(app): \(object.path): \(verb): \(object.reason)") }
        }
        if partial, let lastComplete {
            lines.append("\(app): its archive is partial; the last complete one (generation \(lastComplete.generation)) is kept: restored-ctl restore --last-complete \(app)")
        }
        return lines
    }
}
