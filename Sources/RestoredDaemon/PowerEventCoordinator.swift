public import Logging

/// Saves before suspend and shutdown within logind's delay budget, and
/// keeps restored's delay lock held the rest of the time.
///
/// On the first `PrepareForSleep(true)`, `PrepareForShutdown(true)` or
/// `PrepareForShutdownWithMetadata(true)` of a cycle, it runs the save with a
/// deadline of `InhibitDelayMaxUSec` (read then) minus a margin, and releases
/// the lock as soon as the save is done or the deadline has passed, whichever
/// comes first: a save that overruns is reported, never waited for. Later
/// events of the same cycle (logind sends both shutdown signals) save nothing.
/// After resume (`PrepareForSleep(false)`), a cancelled shutdown, or a logind
/// restart, the lock is taken again, retrying while logind is busy.
public actor PowerEventCoordinator {
    /// Saves every app, aiming to finish before the deadline; the trigger
    /// is ``ActivityTrigger/sleep`` or ``ActivityTrigger/shutdown``.
    public typealias Save = @Sendable (_ trigger: ActivityTrigger, _ deadline: ContinuousClock.Instant) async -> Void

    private let inhibitor: LogindInhibitor
    private let save: Save
    private let unfinished: @Sendable () -> [String]
    private let logger: Logger
    private var cycle: ActivityTrigger?

    /// Creates a coordinator; `unfinished` names the apps still saving, for
    /// the report when the deadline passes.
    public init(inhibitor: LogindInhibitor, logger: Logger, unfinished: @escaping @Sendable () -> [String] = { [] }, save: @escaping Save) {
        self.inhibitor = inhibitor
        self.logger = logger
        self.unfinished = unfinished
        self.save = save
    }

    /// The time kept free before logind's deadline: a fifth of the budget,
    /// between 250 ms and 2 s.
    public static func margin(for budget: Duration) -> Duration {
        min(max(budget / 5, .milliseconds(250)), .seconds(2))
    }

    /// Takes the lock and handles `events` until they end.
    public func run(_ events: some AsyncSequence<LogindEvent, Never>) async {
        await takeLock()
        for await event in events { await handle(event) }
    }

    /// Acts on one event.
    public func handle(_ event: LogindEvent) async {
        switch event {
        case .prepareForSleep(true):
            await saveOnce(.sleep)
        case .prepareForShutdown(true):
            await saveOnce(.shutdown)
        case .prepareForSleep(false), .prepareForShutdown(false):
            cycle = nil
            await takeLock()
        case .restarted:
            logger.notice("logind restarted; taking a new delay lock")
            await inhibitor.release()
            cycle = nil
            await takeLock()
        case .vanished:
            logger.warning("logind left the bus: suspend and shutdown cannot wait for saves until it is back")
            await inhibitor.release()
        }
    }

    private func saveOnce(_ trigger: ActivityTrigger) async {
        guard cycle == nil else {
            logger.debug("already saved for this \(cycle!.rawValue); \(trigger.rawValue) saves nothing more")
            return
        }
        cycle = trigger
        let budget = await inhibitor.delayBudget()
        let start = ContinuousClock.now
        let deadline = start + budget - Self.margin(for: budget)
        let finished = await Deadline.race(deadline: deadline) { [save] in await save(trigger, deadline) }
        let elapsed = ContinuousClock.now - start
        if finished {
            logger.info("saved before \(trigger.rawValue) in \(elapsed); releasing the delay lock")
        } else {
            let late = unfinished()
            let names = late.isEmpty ? "" : ": \(late.joined(separator: ", ")) not saved in time (their archives from before are kept)"
            logger.error("the save before \(trigger.rawValue) did not finish within \(budget - Self.margin(for: budget)) (logind allows \(budget)); releasing the delay lock so the machine is not held up\(names)")
        }
        await inhibitor.release()
    }

    private func takeLock() async {
        do {
            try await inhibitor.acquireRetrying()
        } catch {
            logger.warning("cannot take logind's delay lock (\(error)); apps are still saved on logout and periodically")
        }
    }
}
