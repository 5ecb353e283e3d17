import FoundationEssentials
import RestoredArchive
import RestoredEngine

/// The one interface of the daemon that the admin API (``AdminInterface``)
/// talks to: what it may read and what it may ask, in the daemon's own terms.
///
/// It keeps the daemon's rules in one place: which apps a request names, that
/// an app busy with a save (or a restore, for a restore) is refused rather
/// than queued behind it, and that an app's archive is changed on the app's
/// own queue. The admin API only turns D-Bus values into these calls and the
/// results (and ``AdminError``s) back into D-Bus values.
struct DaemonControl: Sendable {
    /// What `Status` reports.
    struct Status: Sendable {
        /// The daemon's phase.
        var phase: DaemonState.Phase
        /// Whether restored holds logind's delay lock.
        var lockHeld: Bool
        /// Whether logind answered at start.
        var logindReachable: Bool
        /// Whether restored is registered with the session manager.
        var sessionManagerRegistered: Bool
        /// Apps with a running plugin.
        var appCount: Int
        /// Plugin files refused.
        var refusedPluginCount: Int
        /// Where the archives are.
        var stateDirectory: String
        /// The last save of every app.
        var lastSave: DaemonState.SaveRound?
        /// The login's desktop: its phase, the one running, how the last ended.
        var desktop: DesktopSession.Report
    }

    /// One app with a plugin or an archive, for `ListApps`.
    struct App: Sendable {
        /// The app.
        var appID: AppID
        /// Its plugin's file, if one is loaded.
        var pluginFile: String?
        /// The process id of its plugin host, if one runs.
        var pluginHostPID: Int32?
        /// What the save under way is for, if any.
        var saving: ActivityTrigger?
        /// Whether a restore is under way.
        var restoring: Bool
        /// What the archive a restore would read says, or why there is none.
        var archive: Result<ArchiveSummary, ArchiveStoreError>
        /// The last save or restore.
        var lastActivity: AppActivity?
    }

    /// One plugin file, for `ListPlugins`.
    struct Plugin: Sendable {
        /// How a plugin file stands.
        enum State: Sendable {
            /// Running as loaded.
            case loaded
            /// Running, but its file changed since: the next save starts the new build.
            case changedOnDisk
            /// Crashed too often; not started again until its file changes.
            case quarantined(reason: String)
            /// Not loaded, and why.
            case refused(reason: String)
        }

        /// The plugin's file.
        var file: String
        /// Its app, when loaded.
        var appID: AppID?
        /// The ABI version it declared, when loaded.
        var abiVersion: UInt32
        /// How it stands.
        var state: State
    }

    let registry: AppRegistry
    let engine: RestorationEngine
    let state: DaemonState
    let inhibitor: LogindInhibitor?
    /// How long a walk asked for through the admin API may take.
    let walkTimeout: Duration
    /// Every save goes through it, and it records the round.
    let saves: SaveCoordinator
    /// The desktop session's report.
    let desktop: @Sendable () -> DesktopSession.Report

    private var store: ArchiveStore { engine.store }

    // MARK: Reading

    /// What the daemon is doing and has done.
    func status() async -> Status {
        Status(
            phase: state.phase,
            lockHeld: await lockHeld(),
            logindReachable: state.logindReachable,
            sessionManagerRegistered: state.sessionManagerRegistered,
            appCount: registry.hosts.count,
            refusedPluginCount: registry.refusals.count,
            stateDirectory: store.directory.string,
            lastSave: state.lastSave,
            desktop: desktop()
        )
    }

    /// Whether restored holds logind's delay lock.
    func lockHeld() async -> Bool {
        await inhibitor?.isHeld ?? false
    }

    /// The apps with a running plugin.
    var appIDs: [AppID] { registry.hosts.map(\.appID) }

    /// Every app with a plugin or an archive, sorted by id. No object is
    /// decoded: listing 100 apps stays cheap.
    func apps() -> [App] {
        let hosts = registry.hosts
        let archived = (try? store.appIDs()) ?? []
        return Set(hosts.map(\.appID)).union(archived).sorted().map { appID in
            let host = hosts.first { $0.appID == appID }
            return App(
                appID: appID,
                pluginFile: host?.plugin.file.string,
                pluginHostPID: host?.plugin.pid,
                saving: host?.saveInProgress,
                restoring: host?.isRestoring ?? false,
                archive: Result { () throws(ArchiveStoreError) in try store.summary(of: appID) },
                lastActivity: host?.lastActivity
            )
        }
    }

    /// Every plugin file, loaded ones first.
    func plugins() -> [Plugin] {
        let loaded = registry.hosts.map { host in
            let state: Plugin.State
            if let reason = host.plugin.quarantineReason {
                state = .quarantined(reason: reason)
            } else if host.plugin.hasChangedOnDisk {
                state = .changedOnDisk
            } else {
                state = .loaded
            }
            return Plugin(file: host.plugin.file.string, appID: host.appID, abiVersion: host.identity.abiVersion, state: state)
        }
        let refused = registry.refusals.map { refusal in
            Plugin(file: refusal.file.string, appID: nil, abiVersion: 0, state: .refused(reason: refusal.description))
        }
        return loaded + refused
    }

    // MARK: Asking

    /// Saves `apps` (every app when empty) now; returns how many were saved.
    func save(_ apps: [AppID]) async throws(AdminError) -> Int {
        let hosts = try hosts(apps)
        try Self.requireIdle(hosts)
        let reports = await saves.save(hosts, trigger: .request, deadline: .now + walkTimeout)
        return reports.filter { $0.word == .saved || $0.word == .partial }.count
    }

    /// Restores `apps` (every app when empty) now, concurrently; returns how
    /// many were restored.
    func restore(_ apps: [AppID], mode: RestorationMode) async throws(AdminError) -> Int {
        let hosts = try hosts(apps)
        try Self.requireIdle(hosts, restoring: true)
        let deadline = ContinuousClock.now + walkTimeout
        return await withTaskGroup(of: Bool.self) { [engine] group in
            for host in hosts {
                group.addTask { await host.restore(using: engine, mode: mode, trigger: .request, deadline: deadline).outcome == .restored }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
    }

    /// Restores `app` from its last complete archive, kept beside its newer
    /// partial ones (``ArchiveStore/Generation/lastComplete``): the user's
    /// explicit choice, so R15's skip does not apply. `NoArchive` when it
    /// has none (its last save was complete: a plain restore reads it).
    func restoreLastComplete(of app: AppID) async throws(AdminError) -> RestorationReport {
        let hosts = try hosts([app])
        try Self.requireIdle(hosts, restoring: true)
        // Asked before the restore, which would record "nothing saved yet" over the partial save.
        guard (try? store.summary(of: app))?.lastComplete != nil else { throw .noLastComplete(app) }
        return await hosts[0].restore(using: engine, mode: .forced, trigger: .request, deadline: .now + walkTimeout, generation: .lastComplete)
    }

    /// Deletes the archive of `app`, on its queue when it has a plugin.
    func discardArchive(of app: AppID) async throws(AdminError) {
        let host = registry.host(for: app)
        if let host { try Self.requireIdle([host]) }
        let removed: Bool
        do throws(ArchiveStoreError) {
            if let host {
                removed = try await host.discardArchive(in: store)
            } else {
                removed = try store.discard(app)
            }
        } catch {
            throw .failed(error)
        }
        guard removed else { throw .noArchive(app) }
    }

    /// Sets the ignore-snapshot flag of `app`'s archive, on its queue when it
    /// has a plugin.
    func setIgnoresSnapshot(_ ignore: Bool, for app: AppID) async throws(AdminError) {
        let host = registry.host(for: app)
        if let host { try Self.requireIdle([host]) }
        do throws(ArchiveStoreError) {
            if let host {
                try await host.setIgnoresSnapshot(ignore, in: store)
            } else {
                _ = try store.update(app) { $0.ignoresSnapshot = ignore }
            }
        } catch {
            if case .noArchive = error { throw .noArchive(app) }
            throw .failed(error)
        }
    }

    /// Loads new and changed plugin files and drops removed ones.
    func reloadPlugins() async -> AppRegistry.ReloadResult {
        await registry.reload()
    }

    // MARK: Rules

    /// The hosts of `apps`, or every host for none.
    private func hosts(_ apps: [AppID]) throws(AdminError) -> [AppHost] {
        guard !apps.isEmpty else { return registry.hosts }
        var hosts: [AppHost] = []
        for appID in apps {
            guard let host = registry.host(for: appID) else { throw .unknownApp(appID) }
            hosts.append(host)
        }
        return hosts
    }

    /// Refuses when one of `hosts` is being saved or, with `restoring`,
    /// restored (a second restore would run into an app already restored).
    private static func requireIdle(_ hosts: [AppHost], restoring: Bool = false) throws(AdminError) {
        for host in hosts {
            if let trigger = host.saveInProgress {
                throw .busy(host.appID, "is being saved (\(trigger.rawValue)); try again when that save is done")
            }
            if restoring && host.isRestoring {
                throw .busy(host.appID, "is being restored; try again when that restore is done")
            }
        }
    }
}
