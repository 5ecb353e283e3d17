import Dispatch
import Logging
public import RestoredArchive
public import RestoredEngine
public import RestoredHostProtocol
public import RestoredPluginHosting
import RestoredState
import Synchronization

/// One app, served by its plugin host (a helper process), with its walks
/// confined to its own serial queue.
///
/// Apps are saved and restored concurrently, each on its queue, blocking
/// there on its helper; a walk ends at its deadline at the latest (the
/// helper is killed then), so a plugin that hangs holds up only its own app.
/// A save gets one finished result from the helper (the archive content and
/// the walk's report), which the engine checks and writes here; a restore
/// gets one report. The host remembers the app's last save or restore
/// (``lastActivity``) and which save is under way (``saveInProgress``), and
/// hands every finished activity to its handler (the daemon's signals).
/// Unchecked Sendable: `lastWritten` and `lastOmissions` are touched only on `queue`; the rest is
/// behind a mutex or immutable.
public final class AppHost: @unchecked Sendable {
    /// Called with each finished save or restore.
    public typealias ActivityHandler = @Sendable (AppID, AppActivity) -> Void

    /// The app.
    public let appID: AppID
    /// The plugin host serving it.
    public let plugin: PluginHost
    /// The plugin as its helper loaded it.
    public let identity: PluginIdentity
    private let queue: DispatchQueue
    private let onActivity: ActivityHandler
    /// The helper's token of the content last written, for autosave
    /// (touched only on `queue`).
    private var lastWritten: PluginHost.ArchiveToken?
    /// What the app's last written save left out, when it was partial
    /// (touched only on `queue`): the same again is logged quietly.
    private var lastOmissions: [OmittedObject]?
    private let progress = Mutex(Progress())

    private struct Progress {
        var last: AppActivity?
        /// The triggers of the saves asked for and not finished, oldest first.
        var saves: [ActivityTrigger] = []
        /// Restores asked for and not finished.
        var restores = 0
    }

    /// Serves the app of `plugin`, a started plugin host that loaded `identity`.
    public init(plugin: PluginHost, identity: PluginIdentity, onActivity: @escaping ActivityHandler = { _, _ in }) {
        appID = identity.appID
        self.plugin = plugin
        self.identity = identity
        self.onActivity = onActivity
        queue = DispatchQueue(label: "restored.app.\(identity.appID.rawValue)")
    }

    /// The app's last finished save or restore, if any since restored started.
    public var lastActivity: AppActivity? { progress.withLock { $0.last } }

    /// The trigger of the save under way (or waiting its turn), if any.
    public var saveInProgress: ActivityTrigger? { progress.withLock { $0.saves.first } }

    /// Whether a restore is under way (or waiting its turn).
    public var isRestoring: Bool { progress.withLock { $0.restores > 0 } }

    /// Saves the app; its helper is killed if it has not answered by `deadline`.
    public func preserve(using engine: RestorationEngine, trigger: ActivityTrigger, deadline: ContinuousClock.Instant) async -> PreservationReport {
        await save(using: engine, trigger: trigger, unlessUnchanged: false, stillWalked: { true }, deadline: deadline)!
    }

    /// Saves the app only if its state changed since it was last written;
    /// nil when it did not (nothing touches the disk, nothing is recorded).
    /// `stillWalked` is asked again as the walk begins and as it ends: an
    /// autosave queued or walking as the app's desktop ends writes nothing
    /// (its app is going, and a decline would discard the archive it needs).
    public func autosave(
        using engine: RestorationEngine, deadline: ContinuousClock.Instant, stillWalked: @escaping @Sendable () -> Bool
    ) async -> PreservationReport? {
        await save(using: engine, trigger: .autosave, unlessUnchanged: true, stillWalked: stillWalked, deadline: deadline)
    }

    /// Reports a save that does not walk the app (``SaveCoordinator``'s
    /// decision, `reason` saying why): its archive is kept, and the report
    /// is the app's last activity like any other.
    public func keep(because reason: String, trigger: ActivityTrigger) -> PreservationReport {
        let report = PreservationReport(appID: appID, outcome: .kept(reason))
        let activity = AppActivity(report, trigger: trigger)
        progress.withLock { $0.last = activity }
        onActivity(appID, activity)
        return report
    }

    private func save(
        using engine: RestorationEngine, trigger: ActivityTrigger, unlessUnchanged: Bool, stillWalked: @escaping @Sendable () -> Bool,
        deadline: ContinuousClock.Instant
    ) async -> PreservationReport? {
        progress.withLock { $0.saves.append(trigger) }
        let report = await onQueue {
            self.saveOnQueue(using: engine, occasion: trigger.saveOccasion, unlessUnchanged: unlessUnchanged, stillWalked: stillWalked, deadline: deadline)
        }
        let activity = report.map { AppActivity($0, trigger: trigger) }
        progress.withLock { progress in
            if let index = progress.saves.firstIndex(of: trigger) { progress.saves.remove(at: index) }
            if let activity { progress.last = activity }
        }
        if let activity { onActivity(appID, activity) }
        return report
    }

    /// On `queue`: the helper walks, the engine checks and writes what it sent.
    private func saveOnQueue(
        using engine: RestorationEngine, occasion: SaveOccasion, unlessUnchanged: Bool, stillWalked: () -> Bool, deadline: ContinuousClock.Instant
    ) -> PreservationReport? {
        // An autosave queued before the desktop ended walks nothing.
        guard stillWalked() else { return nil }
        let result: HostSaveResult
        let token: PluginHost.ArchiveToken
        switch plugin.save(for: occasion, unlessSameAs: unlessUnchanged ? lastWritten : nil, deadline: deadline) {
        case .success(.unchanged):
            return nil
        case .success(.saved(let saved, let savedToken)):
            result = saved
            token = savedToken
        case .failure(let fault):
            return engine.save(nil, report: PreservationReport(appID: appID, outcome: .failed(fault.description)))
        }
        // The desktop ended while this autosave walked: what the walk found
        // (apps going, a decline) is neither written nor allowed to discard.
        guard stillWalked() else { return nil }
        if let bytes = result.archive {
            // Never trusted: every byte of the archive is checked as a
            // restore will read it before it is written (as it came, with
            // its new generation).
            do {
                let seal = try ArchiveCodec.check(bytes)
                guard seal.appID == appID else {
                    return engine.save(nil, report: PreservationReport(appID: appID, outcome: .failed("its plugin host sent an archive of \(seal.appID)")))
                }
            } catch {
                return engine.save(nil, report: PreservationReport(appID: appID, outcome: .failed("its plugin host sent an unreadable archive (\(error))")))
            }
        }
        // A partial save is a warning once, not at every autosave that
        // leaves out the same objects for the same reasons.
        // (Compared once restored filled in what the host carried over: it
        // may leave out objects the host did not.)
        let saved = engine.save(encoded: result.archive, report: result.report, occasion: occasion, quietIfLeavingOut: lastOmissions)
        switch saved.outcome {
        case .saved:
            lastWritten = token
            lastOmissions = saved.isPartial ? saved.droppedObjects : nil
        case .declined:
            lastWritten = nil
            lastOmissions = nil
        case .failed, .kept: break
        }
        return saved
    }

    /// Removes the app's archive files, between its saves; returns whether
    /// there was anything to remove. The next autosave writes the app's
    /// state even if it has not changed.
    public func discardArchive(in store: ArchiveStore) async throws(ArchiveStoreError) -> Bool {
        let result = await onQueue { () -> Result<Bool, ArchiveStoreError> in
            self.lastWritten = nil
            self.lastOmissions = nil
            do throws(ArchiveStoreError) {
                return .success(try store.discard(self.appID))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Changes the ignore-snapshot flag of the app's archive as it is now,
    /// between its saves (R12). It holds until the app's state changes and
    /// is saved again, which writes the app's own choice.
    public func setIgnoresSnapshot(_ ignore: Bool, in store: ArchiveStore) async throws(ArchiveStoreError) {
        let result = await onQueue { () -> Result<Void, ArchiveStoreError> in
            do throws(ArchiveStoreError) {
                _ = try store.update(self.appID) { $0.ignoresSnapshot = ignore }
                // lastWritten keeps the app's own content: autosave leaves the
                // flag on disk alone until the app's state changes.
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// Restores the app; its helper is killed if it has not answered by `deadline`.
    /// `generation` names the archive file to read (nil: the newest usable).
    public func restore(
        using engine: RestorationEngine, mode: RestorationMode, trigger: ActivityTrigger, deadline: ContinuousClock.Instant,
        generation: ArchiveStore.Generation? = nil
    ) async -> RestorationReport {
        await startRestore(using: engine, mode: mode, trigger: trigger, deadline: deadline, generation: generation).value
    }

    /// Queues a restore on the app's queue now, before this returns, so a
    /// save asked for afterwards (a suspend right after login) runs after it
    /// and never writes the state of the app before its restore.
    /// A crash or hang of the helper leaves the attempt counted (R15).
    public func startRestore(
        using engine: RestorationEngine, mode: RestorationMode, trigger: ActivityTrigger, deadline: ContinuousClock.Instant,
        generation: ArchiveStore.Generation? = nil
    ) -> Task<RestorationReport, Never> {
        progress.withLock { $0.restores += 1 }
        let (result, handOver) = AsyncStream.makeStream(of: RestorationReport.self)
        queue.async {
            // A walk whose plugin never ran (quarantined, helper not
            // started) is no attempt for R15.
            let reason = trigger.restoreReason
            let intoRunningApp = self.identity.traits.contains(.restoresIntoRunningApp)
            let report = engine.restore(self.appID, mode: mode, reason: reason, restoresIntoRunningApp: intoRunningApp, generation: generation) { archive in
                self.plugin.restore(encoded: archive.bytes, reason: reason, deadline: deadline).mapError { WalkInterruption(reason: $0.description, started: $0.pluginRan) }
            }
            handOver.yield(report)
            handOver.finish()
        }
        return Task {
            var reports = result.makeAsyncIterator()
            // The queue always hands a report over.
            let report = await reports.next()!
            let activity = AppActivity(report, trigger: trigger)
            self.progress.withLock { progress in
                progress.restores -= 1
                progress.last = activity
            }
            self.onActivity(self.appID, activity)
            return report
        }
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }
}
