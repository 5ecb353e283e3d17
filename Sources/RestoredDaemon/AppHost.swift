import Dispatch
public import Logging
public import RestoredArchive
public import RestoredEngine

/// One app's plugin instance, confined to its own serial queue.
///
/// Apps are saved and restored concurrently, each on its queue, so a plugin
/// that hangs holds up only its own app (the deadline of a suspend does not
/// wait for it). Unchecked Sendable: the session is touched only on `queue`.
public final class AppHost: @unchecked Sendable {
    /// The app.
    public let appID: AppID
    private let queue: DispatchQueue
    private let session: InProcessPluginSession
    /// The content last written, for autosave (touched only on `queue`).
    private var lastWritten: Archive?

    /// Starts an instance of `plugin` with the app's options.
    public init(plugin: LoadedPlugin, options: [String: String], logger: Logger) throws(PluginCallError) {
        appID = plugin.appID
        queue = DispatchQueue(label: "restored.app.\(plugin.appID.rawValue)")
        session = try plugin.makeSession(options: options, logger: logger)
    }

    /// Saves the app.
    public func preserve(using engine: RestorationEngine) async -> PreservationReport {
        await onQueue { self.save(using: engine, unlessUnchanged: false)! }
    }

    /// Saves the app only if its state changed since it was last written;
    /// nil when it did not (nothing touches the disk).
    public func autosave(using engine: RestorationEngine) async -> PreservationReport? {
        await onQueue { self.save(using: engine, unlessUnchanged: true) }
    }

    /// On `queue`.
    private func save(using engine: RestorationEngine, unlessUnchanged: Bool) -> PreservationReport? {
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

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    /// Restores the app.
    public func restore(using engine: RestorationEngine, mode: RestorationMode) async -> RestorationReport {
        await onQueue { engine.restore(self.session, mode: mode) }
    }
}

