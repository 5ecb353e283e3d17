public import Foundation
public import RestoredEngine

/// The last save or restore of one app, as `ListApps` reports it.
///
/// `outcome` is one word, stable for scripts: for a save `saved`, `declined`
/// (the plugin's `should_save` said no) or `failed`; for a restore
/// `restored`, `no-archive`, `unusable-archive`, `skipped` (R15: the last
/// restore never finished), `declined` or `failed`. `detail` says more for
/// people: the generation written, or why it failed or was skipped.
public struct AppActivity: Hashable, Sendable {
    /// Whether the app was saved or restored.
    public enum Action: String, Hashable, Sendable {
        /// Preservation: the app's state was encoded and written.
        case save
        /// Restoration: the app's archive was read back into it.
        case restore
    }

    /// Save or restore.
    public var action: Action
    /// What caused it.
    public var trigger: ActivityTrigger
    /// How it ended, in one word.
    public var outcome: String
    /// More for people; may be empty.
    public var detail: String
    /// The generation written or read, when there was one.
    public var generation: UInt64?
    /// When it ended.
    public var time: Date

    /// Whether it went wrong in a way the user should look at.
    public var isFailure: Bool { outcome == "failed" || outcome == "unusable-archive" || outcome == "skipped" }

    /// Creates an activity record.
    public init(action: Action, trigger: ActivityTrigger, outcome: String, detail: String = "", generation: UInt64? = nil, time: Date = Date()) {
        self.action = action
        self.trigger = trigger
        self.outcome = outcome
        self.detail = detail
        self.generation = generation
        self.time = time
    }

    /// The record of a save.
    public init(_ report: PreservationReport, trigger: ActivityTrigger, time: Date = Date()) {
        switch report.outcome {
        case .saved(let generation):
            self.init(action: .save, trigger: trigger, outcome: "saved", detail: "generation \(generation), \(report.archiveBytes) bytes", generation: generation, time: time)
        case .declined:
            self.init(action: .save, trigger: trigger, outcome: "declined", detail: "the app asked not to be saved; its archive was discarded (R6)", time: time)
        case .failed(let reason):
            self.init(action: .save, trigger: trigger, outcome: "failed", detail: reason, time: time)
        }
    }

    /// The record of a restore.
    public init(_ report: RestorationReport, trigger: ActivityTrigger, time: Date = Date()) {
        let generation = report.generation
        switch report.outcome {
        case .restored:
            var detail = "generation \(generation.map(String.init) ?? "?")"
            if report.usedPreviousGeneration { detail += " (the previous one: the current file was unusable)" }
            if !report.notRestoredPaths.isEmpty { detail += ", \(report.notRestoredPaths.count) object(s) not restored" }
            self.init(action: .restore, trigger: trigger, outcome: "restored", detail: detail, generation: generation, time: time)
        case .noArchive:
            self.init(action: .restore, trigger: trigger, outcome: "no-archive", detail: "nothing saved yet", time: time)
        case .unusableArchive(let reason):
            self.init(action: .restore, trigger: trigger, outcome: "unusable-archive", detail: reason, time: time)
        case .skippedAfterFailedAttempt(let attempts):
            self.init(
                action: .restore, trigger: trigger, outcome: "skipped",
                detail: "\(attempts) restore(s) started and never finished (R15)", generation: generation, time: time
            )
        case .declined:
            self.init(action: .restore, trigger: trigger, outcome: "declined", detail: "the app asked not to be restored (R7)", generation: generation, time: time)
        case .failed(let reason):
            self.init(action: .restore, trigger: trigger, outcome: "failed", detail: reason, generation: generation, time: time)
        }
    }

    /// One line for the log: `restore at login: restored (generation 3)`.
    public var summary: String {
        "\(action.rawValue) at \(trigger.rawValue): \(outcome)\(detail.isEmpty ? "" : " (\(detail))")"
    }
}
