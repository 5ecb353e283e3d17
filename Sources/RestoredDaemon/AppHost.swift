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

    /// Starts an instance of `plugin` with the app's options.
    public init(plugin: LoadedPlugin, options: [String: String], logger: Logger) throws(PluginCallError) {
        appID = plugin.appID
        queue = DispatchQueue(label: "restored.app.\(plugin.appID.rawValue)")
        session = try plugin.makeSession(options: options, logger: logger)
    }

    /// Saves the app.
    public func preserve(using engine: RestorationEngine) async -> PreservationReport {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: engine.preserve(self.session)) }
        }
    }

    /// Restores the app.
    public func restore(using engine: RestorationEngine, mode: RestorationMode) async -> RestorationReport {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: engine.restore(self.session, mode: mode)) }
        }
    }
}

