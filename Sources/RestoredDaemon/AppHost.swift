import Dispatch
public import Logging
public import RestoredArchive
public import RestoredEngine
import Synchronization

/// One app's plugin instance, confined to its own serial queue.
///
/// Apps are saved and restored concurrently, each on its queue, so a plugin
/// that hangs holds up only its own app (the deadline of a suspend does not
/// wait for it). The host remembers the app's last save or restore
/// (``lastActivity``) and which save is under way (``saveInProgress``), and
/// hands every finished activity to its handler (the daemon's signals).
/// Unchecked Sendable: the session and `lastWritten` are touched only on
/// `queue`; the rest is behind a mutex.
public final class AppHost: @unchecked Sendable {
    /// Called with each finished save or restore.
    public typealias ActivityHandler = @Sendable (AppID, AppActivity) -> Void

    /// The app.
    public let appID: AppID
    /// The plugin serving it.
    public let plugin: LoadedPlugin
    private let queue: DispatchQueue
    private let session: InProcessPluginSession
    private let onActivity: ActivityHandler
    /// The content last written, for autosave (touched only on `queue`).
    private var lastWritten: Archive?
    private let progress = Mutex(Progress())

    private struct Progress {
        var last: AppActivity?
        /// The triggers of the saves asked for and not finished, oldest first.
        var saves: [ActivityTrigger] = []
        /// Restores asked for and not finished.
        var restores = 0
    }

    /// Starts an instance of `plugin` with the app's options.
    public init(plugin: LoadedPlugin, options: [String: String], logger: Logger, onActivity: @escaping ActivityHandler = { _, _ in }) throws(PluginCallError) {
        appID = plugin.appID
        self.plugin = plugin
        self.onActivity = onActivity
        queue = DispatchQueue(label: "restored.app.\(plugin.appID.rawValue)")
        session = try plugin.makeSession(options: options, logger: logger)
    }

    /// The app's last finished save or restore, if any since restored started.
    public var lastActivity: AppActivity? { progress.withLock { $0.last } }

    /// The trigger of the save under way (or waiting its turn), if any.
    public var saveInProgress: ActivityTrigger? { progress.withLock { $0.saves.first } }

    /// Whether a restore is under way (or waiting its turn).
    public var isRestoring: Bool { progress.withLock { $0.restores > 0 } }

    /// Saves the app.
    public func preserve(using engine: RestorationEngine, trigger: ActivityTrigger) async -> PreservationReport {
        await save(using: engine, trigger: trigger, unlessUnchanged: false)!
    }

    /// Saves the app only if its state changed since it was last written;
    /// nil when it did not (nothing touches the disk, nothing is recorded).
    public func autosave(using engine: RestorationEngine) async -> PreservationReport? {
        await save(using: engine, trigger: .autosave, unlessUnchanged: true)
    }

    private func save(using engine: RestorationEngine, trigger: ActivityTrigger, unlessUnchanged: Bool) async -> PreservationReport? {
        progress.withLock { $0.saves.append(trigger) }
        let report = await onQueue { self.saveOnQueue(using: engine, unlessUnchanged: unlessUnchanged) }
        let activity = report.map { AppActivity($0, trigger: trigger) }
        progress.withLock { progress in
            if let index = progress.saves.firstIndex(of: trigger) { progress.saves.remove(at: index) }
            if let activity { progress.last = activity }
        }
        if let activity { onActivity(appID, activity) }
        return report
    }

    /// On `queue`.
    private func saveOnQueue(using engine: RestorationEngine, unlessUnchanged: Bool) -> PreservationReport? {
        let (archive, report) = engine.makeArchive(of: session)
        if unlessUnchanged, let archive, let lastWritten, archive.hasSameContent(as: lastWritten) {
            return nil
        }
        let saved = engine.save(archive, report: report)
        switch saved.outcome {
        case .saved: lastWritten = archive
        case .declined: lastWritten = nil
        case .failed: break
        }
        return saved
    }

    /// Removes the app's archive files, between its saves; returns whether
    /// there was anything to remove. The next autosave writes the app's
    /// state even if it has not changed.
    public func discardArchive(in store: ArchiveStore) async throws(ArchiveStoreError) -> Bool {
        let result = await onQueue { () -> Result<Bool, ArchiveStoreError> in
            self.lastWritten = nil
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

    /// Restores the app.
    public func restore(using engine: RestorationEngine, mode: RestorationMode, trigger: ActivityTrigger) async -> RestorationReport {
        await startRestore(using: engine, mode: mode, trigger: trigger).value
    }

    /// Queues a restore on the app's queue now, before this returns, so a
    /// save asked for afterwards (a suspend right after login) runs after it
    /// and never writes the state of the app before its restore.
    public func startRestore(using engine: RestorationEngine, mode: RestorationMode, trigger: ActivityTrigger) -> Task<RestorationReport, Never> {
        progress.withLock { $0.restores += 1 }
        let result = OneShot<RestorationReport>()
        queue.async { result.fulfil(engine.restore(self.session, mode: mode)) }
        return Task {
            let report = await result.value()
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
