public import Logging
public import RestoredArchive
public import RestoredEngine
import Dispatch
import Synchronization

/// The plugins restored has loaded and the app hosts running them.
///
/// Everything that saves or restores asks the registry for the hosts at the
/// moment it starts, so ``reload()`` (the admin API's `ReloadPlugins`) takes
/// effect at the next save.
public final class AppRegistry: Sendable {
    /// What a reload changed.
    public struct ReloadResult: Sendable, Hashable {
        /// Apps whose plugin was loaded by this reload.
        public var added: [AppID]
        /// Apps whose plugin file is gone; their archives are kept.
        public var removed: [AppID]
        /// Files refused, after this reload.
        public var refused: Int
    }

    private let loader: PluginLoader
    private let options: [AppID: [String: String]]
    private let logger: Logger
    private let activityHandler = Mutex<AppHost.ActivityHandler?>(nil)
    private let state = Mutex<(hosts: [AppHost], catalog: PluginCatalog)>(([], PluginCatalog()))
    private let reloadQueue = DispatchQueue(label: "restored.plugins")

    /// Creates an empty registry; ``reload()`` loads the plugins.
    public init(loader: PluginLoader, options: [AppID: [String: String]], logger: Logger) {
        self.loader = loader
        self.options = options
        self.logger = logger
    }

    /// Hands every finished save or restore of every app to `handler`.
    public func onActivity(_ handler: @escaping AppHost.ActivityHandler) {
        activityHandler.withLock { $0 = handler }
    }

    /// The running app hosts, in plugin search order.
    public var hosts: [AppHost] { state.withLock { $0.hosts } }

    /// The plugins loaded and the files refused.
    public var catalog: PluginCatalog { state.withLock { $0.catalog } }

    /// The host of `appID`, if a plugin serves it.
    public func host(for appID: AppID) -> AppHost? {
        hosts.first { $0.appID == appID }
    }

    /// Scans the plugin directories: new plugins are loaded and started,
    /// hosts whose plugin file is gone (or is now writable by others) are
    /// dropped (their archives stay), running ones are kept as they are.
    /// Nothing is restored or saved here. Reloads run one at a time on their
    /// own queue, off the lock: plugin code runs while the rest of the
    /// daemon keeps using the hosts it has.
    @discardableResult
    public func reload() async -> ReloadResult {
        await withCheckedContinuation { continuation in
            reloadQueue.async { continuation.resume(returning: self.reloadOnQueue()) }
        }
    }

    /// On `reloadQueue`, the only place that changes `state`.
    private func reloadOnQueue() -> ReloadResult {
        let previous = state.withLock { $0 }
        let catalog = loader.load(keeping: previous.catalog, logger: logger)
        var hosts: [AppHost] = []
        var added: [AppID] = []
        var refusals = catalog.refusals
        var plugins: [LoadedPlugin] = []
        for plugin in catalog.plugins {
            if let running = previous.hosts.first(where: { $0.plugin === plugin }) {
                hosts.append(running)
                plugins.append(plugin)
                continue
            }
            do {
                hosts.append(try AppHost(plugin: plugin, options: options[plugin.appID] ?? [:], logger: logger) { [weak self] appID, activity in
                    self?.activityHandler.withLock { $0 }?(appID, activity)
                })
                plugins.append(plugin)
                added.append(plugin.appID)
            } catch {
                logger.error("\(plugin.appID): the plugin could not start: \(error)", metadata: ["app": "\(plugin.appID)"])
                refusals.append(PluginRefusal(file: plugin.file, reason: .startFailed("\(error)")))
            }
        }
        let removed = previous.hosts.filter { old in !hosts.contains { $0 === old } }.map(\.appID)
        for appID in removed {
            logger.notice("\(appID): its plugin is gone or refused now; no longer saved (its archive is kept)", metadata: ["app": "\(appID)"])
        }
        var kept = PluginCatalog()
        kept.plugins = plugins
        kept.refusals = refusals
        state.withLock { $0 = (hosts, kept) }
        return ReloadResult(added: added, removed: removed, refused: refusals.count)
    }
}
