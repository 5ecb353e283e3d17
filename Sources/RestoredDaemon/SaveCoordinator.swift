import FoundationEssentials
import Logging
import RestoredArchive
import RestoredEngine
import Synchronization
import SystemSupport

/// Every save of restored goes through here: what asked for it (the
/// trigger), its budget, and when its asker needs an answer. It records
/// each round for `Status` (autosave's included) and remembers the save at
/// the session's end, which the stop that follows trusts.
///
/// It alone decides which apps a save walks: a state per app
/// (``AppSaveState``: live, waiting for a desktop, ending with its desktop,
/// kept until the next one), moved by the login's start
/// (``awaitDesktop(_:)``) and the desktop's moments (``desktopStarted(_:)``,
/// ``desktopEnded(_:reason:savedAtEnding:)``). A save that does not walk an
/// app reports its archive kept, with the state's reason.
final class SaveCoordinator: Sendable {
    /// How long the save at a desktop's end may take: its apps are going or gone.
    static let desktopEndSaveBudget = Duration.seconds(5)

    /// A save at the session's end that recent is trusted at the stop that
    /// follows: the apps may have quit since, and saving again could write less.
    static let sessionEndSaveTrust = Duration.seconds(60)

    /// The save at the session's end: when it began, the apps it saved (a
    /// partial save is a save; a failed one is not), and the save itself
    /// while it runs.
    private struct SessionEndSave {
        var began: ContinuousClock.Instant
        var saved: Set<AppID> = []
        var work: Task<Void, Never>?
    }

    private let registry: AppRegistry
    private let engine: RestorationEngine
    private let state: DaemonState
    private let walkTimeout: Duration
    private let desktopEndBudget: Duration
    private let logger: Logger
    private let sessionEnd = Mutex<SessionEndSave?>(nil)
    /// The apps not ``AppSaveState/live``.
    private let states = Mutex<[AppID: AppSaveState]>([:])

    /// The coordinator of `registry`'s saves; `desktopEndBudget` bounds
    /// the save at a desktop's end (``desktopEndSaveBudget``; a test on a
    /// loaded machine gives more).
    init(
        registry: AppRegistry, engine: RestorationEngine, state: DaemonState, walkTimeout: Duration, logger: Logger,
        desktopEndBudget: Duration = SaveCoordinator.desktopEndSaveBudget
    ) {
        self.desktopEndBudget = desktopEndBudget
        self.registry = registry
        self.engine = engine
        self.state = state
        self.walkTimeout = walkTimeout
        self.logger = logger
    }

    /// Which saves walk the app.
    func state(of appID: AppID) -> AppSaveState {
        states.withLock { $0[appID] ?? .live }
    }

    /// No desktop at restored's start: `hosts` (the plugins that need one)
    /// wait for it; no save walks them until it starts.
    func awaitDesktop(_ hosts: [AppHost]) {
        states.withLock { states in
            for host in hosts { states[host.appID] = .awaitingDesktop }
        }
    }

    /// The apps of `hosts` whose archives wait for a desktop (a desktop's
    /// start restores them).
    func waitingForDesktop(_ hosts: [AppHost]) -> [AppHost] {
        hosts.filter { state(of: $0.appID).waitsForDesktop }
    }

    /// A desktop started: `hosts` are walked again. Called once their
    /// restores are queued (each on its app's queue), so a save asked for
    /// from now on runs after the restore.
    func desktopStarted(_ hosts: [AppHost]) {
        states.withLock { states in
            for host in hosts { states.removeValue(forKey: host.appID) }
        }
    }

    /// The desktop ended: those of `hosts` (the plugins that need one) that
    /// were walked end with it, and no save but the one at its end walks
    /// them from now on (an autosave under way writes nothing). Returns
    /// them, for ``desktopEnded(_:reason:savedAtEnding:)``.
    func desktopEnding(_ hosts: [AppHost]) -> [AppHost] {
        states.withLock { states in
            hosts.filter { host in
                guard states[host.appID] == nil else { return false }
                states[host.appID] = .endingWithDesktop
                return true
            }
        }
    }

    /// The desktop ended (`reason`) with `ending` (``desktopEnding(_:)``'s).
    /// Unless its ending saved them (`savedAtEnding`), every app is saved
    /// for the session end, within ``desktopEndSaveBudget`` (or the budget
    /// given at init; a desktop's word of its end may come only as its
    /// display goes, as sway's does); then its apps are kept until the next
    /// desktop.
    func desktopEnded(_ ending: [AppHost], reason: String, savedAtEnding: Bool) async {
        if !savedAtEnding {
            await saveForSessionEnd(source: "the desktop ended: \(reason)", budget: desktopEndBudget, atDesktopEnd: true)
        }
        states.withLock { states in
            for host in ending where states[host.appID] == .endingWithDesktop { states[host.appID] = .keptUntilNextDesktop }
        }
        if !ending.isEmpty {
            logger.info("\(ending.map(\.appID.rawValue).joined(separator: ", ")) kept until the next desktop")
        }
    }

    /// Saves `hosts` concurrently and records the round for `Status`; a
    /// plugin host that has not answered by `deadline` is killed. An app no
    /// save walks now keeps its archive and says why.
    @discardableResult
    func save(_ hosts: [AppHost], trigger: ActivityTrigger, deadline: ContinuousClock.Instant) async -> [PreservationReport] {
        await save(hosts, trigger: trigger, deadline: deadline, atDesktopEnd: false)
    }

    /// Saves `hosts`; the save at a desktop's end (`atDesktopEnd`) walks
    /// the apps ending with it too.
    private func save(_ hosts: [AppHost], trigger: ActivityTrigger, deadline: ContinuousClock.Instant, atDesktopEnd: Bool) async -> [PreservationReport] {
        state.beginSave()
        defer { state.endSave() }
        let reports = await withTaskGroup(of: PreservationReport.self) { [engine] group in
            for host in hosts {
                let appState = state(of: host.appID)
                if appState.isWalked(atDesktopEnd: atDesktopEnd) {
                    group.addTask { await host.preserve(using: engine, trigger: trigger, deadline: deadline) }
                } else {
                    group.addTask { host.keep(because: appState.keptReason, trigger: trigger) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        record(reports, trigger: trigger)
        state.releaseFreedMemorySoon()
        return reports
    }

    /// The autosave round: each app whose state changed since it was last
    /// written, except those busy with a save or restore and those no save
    /// walks now (asked again as each walk begins and ends). A round that
    /// wrote something is recorded like any other.
    func autosave() async {
        let hosts = registry.hosts.filter { $0.saveInProgress == nil && !$0.isRestoring && state(of: $0.appID) == .live }
        guard !hosts.isEmpty else { return }
        state.beginSave()
        defer { state.endSave() }
        let reports = await withTaskGroup(of: PreservationReport?.self) { [engine, walkTimeout, logger] group in
            for host in hosts {
                group.addTask {
                    let appID = host.appID
                    let report = await host.autosave(using: engine, deadline: .now + walkTimeout) { self.state(of: appID) == .live }
                    if report == nil { logger.debug("autosave: \(host.appID) unchanged", metadata: ["app": "\(host.appID)"]) }
                    return report
                }
            }
            return await group.reduce(into: [PreservationReport]()) { if let report = $1 { $0.append(report) } }
        }
        // A round where nothing changed allocated next to nothing: no trim.
        if !reports.isEmpty {
            record(reports, trigger: .autosave)
            state.releaseFreedMemorySoon()
        }
    }

    /// The save when the desktop says the session ends (`source`, at
    /// `asked`), before the apps go, within `budget` of it (what the desktop
    /// waits, less a margin); the stop that follows within
    /// ``sessionEndSaveTrust`` trusts it. With `answerWithin` shorter than
    /// `budget` (the portal's second), it returns then so the desktop gets
    /// its answer in time, while the saves still running go on until the
    /// budget's end. A second word of the same end (XSMP after the
    /// portal) starts no second save: it waits for the one under way, within
    /// its own time, or finds it done.
    func saveForSessionEnd(source: String, asked: ContinuousClock.Instant = .now, budget: Duration, answerWithin: Duration? = nil) async {
        await saveForSessionEnd(source: source, asked: asked, budget: budget, answerWithin: answerWithin, atDesktopEnd: false)
    }

    private func saveForSessionEnd(
        source: String, asked: ContinuousClock.Instant = .now, budget: Duration, answerWithin: Duration? = nil, atDesktopEnd: Bool
    ) async {
        let deadline = asked + budget
        let answer = answerWithin.map { min(asked + $0, deadline) } ?? deadline
        let earlier = sessionEnd.withLock { end in end.map { ($0.began, $0.work) } }
        if let (began, running) = earlier, began.duration(to: .now) < Self.sessionEndSaveTrust {
            guard let running else {
                logger.info("the session ends (\(source)): every app was saved at this logout moments ago")
                return
            }
            logger.info("the session ends (\(source)): the save at this logout is under way; answering once it is done")
            _ = await Deadline.race(deadline: answer) { await running.value }
            return
        }
        let hosts = registry.hosts
        let started = asked
        logger.info("the session ends (\(source)): saving every app")
        let work = Task {
            let reports = await self.save(hosts, trigger: .logout, deadline: deadline, atDesktopEnd: atDesktopEnd)
            let saved = reports.filter { $0.word != .failed }.map(\.appID)
            self.sessionEnd.withLock { end in
                guard end?.began == started else { return }
                end?.saved.formUnion(saved)
                end?.work = nil
            }
        }
        sessionEnd.withLock { $0 = SessionEndSave(began: started, work: work) }
        let finished = await Deadline.race(deadline: answer) { await work.value }
        if !finished {
            let limit = answer - started
            let unfinished = Self.unfinished(hosts).joined(separator: ", ")
            if answer < deadline {
                logger.warning("saving at logout (\(source)) took longer than \(limit); answering anyway; still saving, for up to \(budget) in all: \(unfinished)")
            } else {
                logger.error("saving at logout (\(source)) took longer than \(limit); going on anyway; not saved: \(unfinished)")
            }
        }
    }

    /// The end of the session was called off: the next stop saves again.
    func forgetSessionEndSave() {
        sessionEnd.withLock { $0 = nil }
    }

    /// The save at SIGTERM, SIGINT or Stop, for `trigger` (``ActivityTrigger/logout``
    /// when a witness says the login ends, ``ActivityTrigger/stop`` when
    /// restored alone stops), within `budget`. Apps saved at the session's
    /// end moments ago are not saved again: they may have quit since.
    func saveBeforeStopping(trigger: ActivityTrigger, budget: Duration, stopping: (Int) -> Void) async {
        var remaining = registry.hosts
        let trusted = sessionEnd.withLock { end -> Set<AppID> in
            guard let end, end.began.duration(to: .now) < Self.sessionEndSaveTrust else { return [] }
            return end.saved
        }
        if !trusted.isEmpty {
            let names = remaining.map(\.appID).filter(trusted.contains).map(\.rawValue)
            if !names.isEmpty { logger.info("not saving \(names.joined(separator: ", ")) again: saved at logout moments ago") }
            remaining.removeAll { trusted.contains($0.appID) }
        }
        let hosts = remaining
        stopping(hosts.count)
        let deadline = ContinuousClock.now + budget
        let reports = Mutex<[PreservationReport]>([])
        let finished = await Deadline.race(deadline: deadline) {
            let done = await self.save(hosts, trigger: trigger, deadline: deadline)
            reports.withLock { $0 = done }
        }
        guard finished else {
            logger.error("saving before stopping took longer than \(budget); stopping anyway so systemd does not kill restored; not saved: \(Self.unfinished(hosts).joined(separator: ", "))")
            return
        }
        let done = reports.withLock { $0 }
        let failed = done.filter { $0.word == .failed }.map(\.appID.rawValue).sorted()
        let partial = done.filter { $0.word == .partial }.map(\.appID.rawValue).sorted()
        var line = "before stopping: " + Self.tally(done)
        if !partial.isEmpty { line += "; saved partially: \(partial.joined(separator: ", ")) (their last complete archives are kept)" }
        if failed.isEmpty && partial.isEmpty {
            logger.info("\(line)")
        } else if failed.isEmpty {
            logger.warning("\(line)")
        } else {
            logger.error("\(line); not saved: \(failed.joined(separator: ", ")) (their last archives are kept)")
        }
    }

    private func record(_ reports: [PreservationReport], trigger: ActivityTrigger) {
        let saved = reports.filter { $0.word == .saved || $0.word == .partial }.count
        let failed = reports.filter { $0.word == .failed }.count
        state.lastSave = DaemonState.SaveRound(trigger: trigger, time: Date(), saved: saved, failed: failed)
    }

    /// How a round of saves went, in words: `2 saved, 1 kept its last archive, 1 failed`.
    static func tally(_ reports: [PreservationReport]) -> String {
        if reports.isEmpty { return "no app to save" }
        let counts = Dictionary(grouping: reports, by: \.word).mapValues(\.count)
        let words: [(SaveOutcome, String)] = [
            (.saved, "saved"), (.partial, "saved partially"), (.kept, "kept its last archive"), (.declined, "declined (no archive kept)"), (.failed, "failed"),
        ]
        return words.compactMap { word, text in counts[word].map { "\($0) \(text)" } }.joined(separator: ", ")
    }

    /// Whether nothing is saved or restored now: the daemon idles between
    /// saves (no round under way, no stop begun) and no app has a save or
    /// restore under way or queued. An upgrade's restart waits for it
    /// (``QuietMoment``, nudged as each of these ends).
    var isIdle: Bool {
        state.phase == .running && !registry.hosts.contains { $0.isRestoring || $0.saveInProgress != nil }
    }

    /// The apps of `hosts` with a save under way.
    static func unfinished(_ hosts: [AppHost]) -> [String] {
        hosts.filter { $0.saveInProgress != nil }.map(\.appID.rawValue)
    }
}
