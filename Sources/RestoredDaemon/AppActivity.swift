public import FoundationEssentials
public import RestoredArchive
public import RestoredEngine

/// The last save or restore of one app, as `ListApps` reports it.
///
/// `outcome` is the action and one word, stable for scripts
/// (``SaveOutcome``, ``RestoreOutcome``); `detail` says more for people:
/// the generation written, or why it failed or was skipped; `omissions`
/// name the objects a partial save left out or a restore did not restore.
public struct AppActivity: Hashable, Sendable {
    /// Save or restore, and how it ended.
    public var outcome: ActivityOutcome
    /// What caused it.
    public var trigger: ActivityTrigger
    /// More for people; may be empty.
    public var detail: String
    /// The generation written or read, when there was one.
    public var generation: UInt64?
    /// When it ended.
    public var time: Date
    /// The objects it left out, with why: dropped by a partial save, or not
    /// restored by a restore.
    public var omissions: [OmittedObject] = []

    /// Whether it went wrong in a way the user should look at.
    public var isFailure: Bool { outcome.isFailure }

    /// Creates an activity record.
    public init(_ outcome: ActivityOutcome, trigger: ActivityTrigger, detail: String = "", generation: UInt64? = nil, time: Date = Date()) {
        self.outcome = outcome
        self.trigger = trigger
        self.detail = detail
        self.generation = generation
        self.time = time
    }

    /// The record of a save.
    public init(_ report: PreservationReport, trigger: ActivityTrigger, time: Date = Date()) {
        let outcome = ActivityOutcome.save(report.word)
        switch report.outcome {
        case .saved(let generation) where report.isPartial:
            let count = report.droppedObjects.count
            var detail = "generation \(generation), \(report.archiveBytes) bytes; \(count) object\(count == 1 ? "" : "s") left out"
            detail += report.lastCompleteGeneration.map {
                "; its last complete archive (generation \($0)) is kept: restored-ctl restore --last-complete \(report.appID)"
            } ?? "; there is no complete archive of it"
            self.init(outcome, trigger: trigger, detail: detail, generation: generation, time: time)
            omissions = report.droppedObjects
        case .saved(let generation):
            self.init(outcome, trigger: trigger, detail: "generation \(generation), \(report.archiveBytes) bytes", generation: generation, time: time)
        case .declined:
            self.init(outcome, trigger: trigger, detail: "the app asked not to be saved; its archive was discarded (R6)", time: time)
        case .failed(let reason), .kept(let reason):
            self.init(outcome, trigger: trigger, detail: reason, time: time)
        }
    }

    /// The record of a restore.
    public init(_ report: RestorationReport, trigger: ActivityTrigger, time: Date = Date()) {
        let generation = report.generation
        let outcome = ActivityOutcome.restore(report.outcome.word)
        switch report.outcome {
        case .restored:
            var detail = "generation \(generation.map(String.init) ?? "?")"
            if report.usedPreviousGeneration { detail += " (the previous one: the current file was unusable)" }
            if !report.notRestored.isEmpty { detail += ", \(report.notRestored.count) object(s) not restored" }
            self.init(outcome, trigger: trigger, detail: detail, generation: generation, time: time)
            omissions = report.notRestored
        case .noArchive:
            self.init(outcome, trigger: trigger, detail: "nothing saved yet", time: time)
        case .unusableArchive(let reason):
            self.init(outcome, trigger: trigger, detail: reason, time: time)
        case .skippedAfterFailedAttempt(let attempts, let recordIsDamaged):
            let detail = recordIsDamaged
                ? "its record of restore attempts (\(RestoreAttemptRecord.fileName)) cannot be read, which counts as a restore that never finished (R15); restored-ctl restore --force \(report.appID) writes it anew"
                : "\(attempts) restore(s) started and never finished (R15)"
            self.init(outcome, trigger: trigger, detail: detail, generation: generation, time: time)
        case .declined:
            self.init(outcome, trigger: trigger, detail: "the app asked not to be restored (R7)", generation: generation, time: time)
        case .failed(let reason):
            self.init(outcome, trigger: trigger, detail: reason, generation: generation, time: time)
        case .skippedLiveApp:
            self.init(outcome, trigger: trigger, detail: "restored started again while the app runs; nothing restored into it, its archive kept", time: time)
        }
    }

    /// One line for the log: `restore at login: restored (generation 3)`.
    public var summary: String {
        "\(outcome.action) at \(trigger.rawValue): \(outcome.word)\(detail.isEmpty ? "" : " (\(detail))")"
    }
}
