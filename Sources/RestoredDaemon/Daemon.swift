import Foundation
public import Logging
import RestoredArchive
import RestoredDBus
import RestoredEngine
import RestoredSystemd
public import ServiceLifecycle

/// The restored daemon, as a service of a `ServiceGroup`.
///
/// Start: load the plugins, own `org.restored1` on the session bus, restore
/// every app that has an archive (R7, R15), take logind's delay lock when
/// logind is on the system bus, register with the session manager when there
/// is one, then tell systemd it is ready. Running: save before suspend and
/// shutdown (``PowerEventCoordinator``) and at the session manager's
/// EndSession, answer the admin API, ping the watchdog. Graceful shutdown
/// (SIGTERM at logout, SIGINT, or the session manager's Stop): save every
/// app, tell systemd it is stopping, release the lock.
public final class Daemon: Service {
    /// The daemon's bus name.
    public static let busName = "org.restored1"
    /// The manager object.
    public static let objectPath = "/org/restored1"
    /// The manager interface.
    public static let interface = "org.restored1.Manager"
    /// How long the save before stopping may take (restored.service allows 20 s).
    public static let stopSaveBudget = Duration.seconds(15)

    private let configuration: DaemonConfiguration
    private let logger: Logger
    private let notifier: SystemdNotifier
    private let engine: RestorationEngine
    private let startupID: String

    /// Creates the daemon; `environment` gives NOTIFY_SOCKET and WATCHDOG_USEC.
    public init(configuration: DaemonConfiguration, logger: Logger, environment: [String: String]) {
        self.configuration = configuration
        self.logger = logger
        self.notifier = SystemdNotifier(environment: environment)
        self.startupID = environment["DESKTOP_AUTOSTART_ID"] ?? ""
        self.engine = RestorationEngine(store: ArchiveStore(directory: configuration.stateDirectory), logger: logger)
    }

    /// Runs until graceful shutdown, then saves every app.
    public func run() async throws {
        let (hosts, catalog) = startPlugins()
        let session: DBusConnection
        do {
            session = try await DBusConnection.connect(to: configuration.sessionBus)
        } catch {
            throw DBusError(name: error.name, message: "\(error.message); restored serves a desktop session: run it inside one (DBUS_SESSION_BUS_ADDRESS), or try scripts/demo")
        }
        defer { session.close() }
        let (inhibitor, power) = await startPowerEvents(hosts)
        // Serve the object before owning the name: calls queued by D-Bus
        // activation arrive as soon as the name is ours.
        session.export(path: Self.objectPath, interfaces: [
            AdminInterface(hosts: hosts, catalog: catalog, engine: engine, inhibitor: inhibitor, connection: session).interface,
        ])
        try await session.requestName(Self.busName)

        for host in hosts {
            let report = await host.restore(using: engine, mode: .automatic)
            logger.info("login restore of \(host.appID): \(report.outcome)", metadata: ["app": "\(host.appID)"])
        }

        let (stopRequests, stop) = AsyncStream<Void>.makeStream()
        let logout = await followSessionManager(session, hosts, stop: stop)

        try? notifier.ready(status: "Watching \(hosts.count) app\(hosts.count == 1 ? "" : "s")")
        let watchdog = Task { [notifier] in try? await notifier.runWatchdog() }
        let autosave = configuration.autosaveInterval.map { interval in
            Task { [engine, logger] in await Self.autosave(hosts, every: interval, engine: engine, logger: logger) }
        }

        // Until SIGTERM/SIGINT, or the session manager's Stop.
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await gracefulShutdown() }
            group.addTask { for await _ in stopRequests { return } }
            await group.next()
            group.cancelAll()
        }
        logout?.cancel()
        autosave?.cancel()

        try? notifier.stopping(status: "Saving \(hosts.count) app\(hosts.count == 1 ? "" : "s") before stopping")
        // systemd waits TimeoutStopSec (20 s in restored.service): leave room.
        let finished = await PowerEventCoordinator.race(deadline: .now + Self.stopSaveBudget) { [engine] in
            _ = await Self.saveAll(hosts, engine: engine)
        }
        if finished {
            logger.info("saved every app before stopping")
        } else {
            logger.error("saving before stopping took longer than \(Self.stopSaveBudget); stopping anyway so systemd does not kill restored")
        }
        power?.cancel()
        watchdog.cancel()
        await inhibitor?.release()
    }

    private func startPlugins() -> ([AppHost], PluginCatalog) {
        let catalog = PluginLoader(directories: configuration.pluginDirectories).load(logger: logger)
        var hosts: [AppHost] = []
        for plugin in catalog.plugins {
            do {
                hosts.append(try AppHost(plugin: plugin, options: configuration.appOptions[plugin.appID] ?? [:], logger: logger))
            } catch {
                logger.error("\(plugin.appID): the plugin could not start: \(error)", metadata: ["app": "\(plugin.appID)"])
            }
        }
        return (hosts, catalog)
    }

    /// Takes logind's delay lock and saves on its events; nil when logind is not there.
    private func startPowerEvents(_ hosts: [AppHost]) async -> (LogindInhibitor?, Task<Void, Never>?) {
        guard let system = try? await DBusConnection.connect(to: configuration.systemBus),
              await system.owner(of: LogindInhibitor.busName) != nil
        else {
            logger.notice("logind is not reachable on the system bus: nothing is saved at suspend or shutdown; apps are still saved at logout (SIGTERM)")
            return (nil, nil)
        }
        let inhibitor = LogindInhibitor(connection: system, logger: logger)
        let engine = self.engine
        let coordinator = PowerEventCoordinator(inhibitor: inhibitor, logger: logger) { _, _ in
            _ = await Self.saveAll(hosts, engine: engine)
        }
        guard let events = try? await inhibitor.events() else {
            logger.warning("cannot follow logind's signals; nothing is saved at suspend or shutdown")
            return (nil, nil)
        }
        let task = Task {
            await coordinator.run(events)
            withExtendedLifetime(system) {}
        }
        return (inhibitor, task)
    }

    /// Registers with the session manager, answers its requests (saving every
    /// app before answering EndSession) and yields to `stop` on its Stop.
    /// Nil when there is no session manager: logout then comes as SIGTERM.
    private func followSessionManager(_ session: DBusConnection, _ hosts: [AppHost], stop: AsyncStream<Void>.Continuation) async -> Task<Void, Never>? {
        let client = SessionManagerClient(connection: session, startupID: startupID, logger: logger)
        let requests: AsyncStream<SessionManagerClient.Request>
        do {
            guard let stream = try await client.register() else {
                logger.info("no session manager on the session bus; logout is handled at SIGTERM")
                return nil
            }
            requests = stream
        } catch {
            logger.warning("cannot register with the session manager (\(error)); logout is handled at SIGTERM")
            return nil
        }
        let engine = self.engine
        let logger = self.logger
        return Task {
            for await request in requests {
                switch request {
                case .queryEndSession:
                    try? await client.respond()
                case .endSession:
                    // The session manager waits ten seconds for the answer.
                    let finished = await PowerEventCoordinator.race(deadline: .now + .seconds(8)) {
                        _ = await Self.saveAll(hosts, engine: engine)
                    }
                    if !finished { logger.error("saving at logout took longer than 8 s; answering the session manager anyway") }
                    try? await client.respond()
                case .cancelEndSession:
                    logger.info("the session manager called off the logout")
                case .stop:
                    stop.yield(())
                }
            }
        }
    }

    /// Every `interval`, saves the apps whose state changed; an idle desktop
    /// causes no writes.
    static func autosave(_ hosts: [AppHost], every interval: Duration, engine: RestorationEngine, logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            await withTaskGroup(of: Void.self) { group in
                for host in hosts {
                    group.addTask {
                        if await host.autosave(using: engine) == nil {
                            logger.debug("autosave: \(host.appID) unchanged", metadata: ["app": "\(host.appID)"])
                        }
                    }
                }
            }
        }
    }

    /// Saves every app concurrently; returns how many were saved.
    static func saveAll(_ hosts: [AppHost], engine: RestorationEngine) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            for host in hosts {
                group.addTask {
                    if case .saved = await host.preserve(using: engine).outcome { return true }
                    return false
                }
            }
            var saved = 0
            for await ok in group where ok { saved += 1 }
            return saved
        }
    }

    /// Refuses callers that run as another user, even on the session bus.
    static func requireOwnUser(_ call: DBusMethodCall) async throws {
        let uid = try await call.connection.unixUser(of: call.sender ?? "")
        guard uid == getuid() else {
            throw DBusError.accessDenied("restored serves only user \(getuid()); the caller runs as user \(uid)")
        }
    }
}
