public import Logging
public import RestoredArchive
public import RestoredEngine
import RestoredHostProtocol
public import RestoredPluginHosting
import Dispatch
import Synchronization
public import SystemPackage

/// The plugin files restored found, the plugin hosts running them, and the
/// app hosts they serve.
///
/// restored never loads a plugin itself: for each plugin file it starts a
/// plugin host (``PluginHost``), which loads the plugin and says which app
/// it restores, or why it refused it. Everything that saves or restores
/// asks the registry for the hosts at the moment it starts, so ``reload()``
/// (the admin API's `ReloadPlugins`) takes effect at the next save.
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

    /// The directories its plugins are loaded from, in search order.
    public var pluginDirectories: [FilePath] { loader.directories }
    /// The option every plugin gets: the app ids of all plugins loaded,
    /// separated by spaces.
    public static let loadedAppsOption = "restored.apps"

    /// The plugins' options, read again at every reload.
    private let options: @Sendable () -> [AppID: [String: String]]
    private let hostConfiguration: PluginHost.Configuration
    private let logger: Logger
    private let state = Mutex(State())
    private let reloadQueue = DispatchQueue(label: "restored.plugins")

    /// What the registry holds. A struct on purpose: a closure stored as a
    /// `Mutex`'s value itself (or in a tuple) is reabstracted into a new
    /// thunk at every `withLock`, so the handler would grow one call deeper
    /// with every activity until a thread's stack overflows.
    private struct State {
        var hosts: [AppHost] = []
        var refusals: [PluginRefusal] = []
        var onActivity: AppHost.ActivityHandler?
    }

    /// Creates an empty registry; ``reload()`` starts the plugin hosts.
    public init(loader: PluginLoader, options: @escaping @Sendable () -> [AppID: [String: String]], hostConfiguration: PluginHost.Configuration, logger: Logger) {
        self.loader = loader
        self.options = options
        self.hostConfiguration = hostConfiguration
        self.logger = logger
    }

    /// Hands every finished save or restore of every app to `handler`.
    public func onActivity(_ handler: @escaping AppHost.ActivityHandler) {
        state.withLock { $0.onActivity = handler }
    }

    /// Hands one finished save or restore to the handler of ``onActivity(_:)``.
    func report(_ activity: AppActivity, of appID: AppID) {
        state.withLock { $0.onActivity }?(appID, activity)
    }

    /// The running app hosts, in plugin search order.
    public var hosts: [AppHost] { state.withLock { $0.hosts } }

    /// The files refused, with reasons.
    public var refusals: [PluginRefusal] { state.withLock { $0.refusals } }

    /// The host of `appID`, if a plugin serves it.
    public func host(for appID: AppID) -> AppHost? {
        hosts.first { $0.appID == appID }
    }

    /// Scans the plugin directories: new files get a plugin host (loaded,
    /// not restored), files refused before are tried again, a file that
    /// changed on disk (a new build) gets a new plugin host, and hosts whose
    /// file is gone (or is now writable by others) are stopped (their
    /// archives stay). Reloads run one at a time on their own queue, off the
    /// lock: the rest of the daemon keeps using the hosts it has.
    @discardableResult
    public func reload() async -> ReloadResult {
        await withCheckedContinuation { continuation in
            reloadQueue.async { continuation.resume(returning: self.reloadOnQueue()) }
        }
    }

    /// Stops every plugin host.
    public func stopAll() {
        for host in hosts { host.plugin.stop() }
    }

    /// On `reloadQueue`, the only place that changes `state`.
    private func reloadOnQueue() -> ReloadResult {
        let options = self.options()
        let previous = state.withLock { $0.hosts }
        let candidates = loader.candidates()
        let kept = Dictionary(previous.map { ($0.plugin.file, $0) }, uniquingKeysWith: { first, _ in first })

        // New files start their plugin hosts concurrently (each loads its plugin).
        let newFiles = candidates.filter { $0.refusal == nil && kept[$0.file] == nil }.map(\.file)
        let starts = Mutex<[FilePath: (PluginHost, Result<PluginIdentity, PluginStartFailure>)]>([:])
        DispatchQueue.concurrentPerform(iterations: newFiles.count) { index in
            let file = newFiles[index]
            let host = PluginHost(file: file, configuration: hostConfiguration, logger: logger)
            let result = host.start()
            starts.withLock { $0[file] = (host, result) }
        }
        let started = starts.withLock { $0 }

        var hosts: [AppHost] = []
        var refusals: [PluginRefusal] = []
        var added: [AppID] = []
        /// A plugin file not loaded: listed, and said in its one line.
        func refuse(_ refusal: PluginRefusal) {
            refusals.append(refusal)
            logger.error("\(refusal.description)")
        }
        for candidate in candidates {
            let file = candidate.file
            if let refusal = candidate.refusal {
                refuse(refusal)
                continue
            }
            if let running = kept[file] {
                if let first = hosts.first(where: { $0.appID == running.appID }) {
                    refusals.append(PluginRefusal(file: file, reason: .duplicateAppID(running.appID.rawValue, loadedFrom: first.plugin.file)))
                    continue
                }
                if running.plugin.hasChangedOnDisk, case .success = running.plugin.start() {
                    logger.notice("\(running.appID): \(file.string) changed; a new plugin host runs the new build", metadata: ["app": "\(running.appID)"])
                }
                hosts.append(running)
                continue
            }
            guard let (plugin, result) = started[file] else { continue }
            // A plugin quarantined before restored started is listed with the
            // identity it had, quarantined, until its file changes.
            let outcome = result.flatMapError { failure -> Result<PluginIdentity, PluginStartFailure> in
                if case .fault(.quarantined) = failure, let identity = plugin.identity { .success(identity) } else { .failure(failure) }
            }
            switch outcome {
            case .success(let identity):
                if let first = hosts.first(where: { $0.appID == identity.appID }) {
                    plugin.stop()
                    refuse(PluginRefusal(file: file, reason: .duplicateAppID(identity.appID.rawValue, loadedFrom: first.plugin.file)))
                    continue
                }
                let host = AppHost(plugin: plugin, identity: identity) { [weak self] appID, activity in
                    self?.report(activity, of: appID)
                }
                hosts.append(host)
                added.append(identity.appID)
                if let quarantine = plugin.quarantineReason {
                    logger.warning("\(file.string) (\(identity.appID)) stays quarantined: \(quarantine); it is started again once the file changes", metadata: ["app": "\(identity.appID)"])
                    continue
                }
                logger.info("loaded plugin \(file.string) for \(identity.appID) in plugin host \(host.plugin.pid.map(String.init) ?? "?")", metadata: ["app": "\(identity.appID)"])
            case .failure(.refused(let reason)):
                refuse(PluginRefusal(file: file, reason: reason))
            case .failure(.fault(.versionMismatch(let seen))):
                refuse(PluginRefusal(file: file, reason: .hostVersionMismatch(seen)))
            case .failure(.fault(let fault)):
                refuse(PluginRefusal(file: file, reason: .startFailed(fault.description)))
            }
        }
        // Options are known once every app is: each plugin gets its own, and
        // `restored.apps`, the app ids of every plugin loaded (a plugin that
        // reopens the session's apps leaves those to their own plugins).
        // They reach `create` at the next walk.
        let loaded = hosts.map(\.appID.rawValue).sorted().joined(separator: " ")
        for host in hosts {
            var newOptions = options[host.appID] ?? [:]
            newOptions[Self.loadedAppsOption] = loaded
            guard host.plugin.options != newOptions else { continue }
            let isNew = added.contains(host.appID)
            host.plugin.options = newOptions
            if !isNew {
                logger.notice("\(host.appID): its options changed; the plugin gets them at its next walk", metadata: ["app": "\(host.appID)"])
            }
        }
        let removed = previous.filter { old in !hosts.contains { $0 === old } }
        for host in removed {
            host.plugin.stop()
            logger.notice("\(host.appID): its plugin is gone or refused now; no longer saved (its archive is kept)", metadata: ["app": "\(host.appID)"])
        }
        state.withLock { state in
            state.hosts = hosts
            state.refusals = refusals
        }
        return ReloadResult(added: added, removed: removed.map(\.appID), refused: refusals.count)
    }
}
