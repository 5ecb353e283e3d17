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
/// logind is on the system bus, then tell systemd it is ready. Running: save
/// before suspend and shutdown (``PowerEventCoordinator``), answer the
/// admin API, ping the watchdog. Graceful shutdown (SIGTERM at logout, or
/// SIGINT): save every app, tell systemd it is stopping, release the lock.
public final class Daemon: Service {
    /// The daemon's bus name.
    public static let busName = "org.restored1"
    /// The manager object.
    public static let objectPath = "/org/restored1"
    /// The manager interface.
    public static let interface = "org.restored1.Manager"

    private let configuration: DaemonConfiguration
    private let logger: Logger
    private let notifier: SystemdNotifier
    private let engine: RestorationEngine

    /// Creates the daemon; `environment` gives NOTIFY_SOCKET and WATCHDOG_USEC.
    public init(configuration: DaemonConfiguration, logger: Logger, environment: [String: String]) {
        self.configuration = configuration
        self.logger = logger
        self.notifier = SystemdNotifier(environment: environment)
        self.engine = RestorationEngine(store: ArchiveStore(directory: configuration.stateDirectory), logger: logger)
    }

    /// Runs until graceful shutdown, then saves every app.
    public func run() async throws {
        let hosts = startPlugins()
        let session = try await DBusConnection.connect(to: configuration.sessionBus)
        defer { session.close() }
        try await session.requestName(Self.busName)

        for host in hosts {
            let report = await host.restore(using: engine, mode: .automatic)
            logger.info("login restore of \(host.appID): \(report.outcome)", metadata: ["app": "\(host.appID)"])
        }

        let (inhibitor, power) = await startPowerEvents(hosts)
        session.export(path: Self.objectPath, interfaces: [managerInterface(hosts: hosts, inhibitor: inhibitor)])

        try? notifier.ready(status: "Watching \(hosts.count) app\(hosts.count == 1 ? "" : "s")")
        let watchdog = Task { [notifier] in try? await notifier.runWatchdog() }

        try? await gracefulShutdown()

        try? notifier.stopping(status: "Saving \(hosts.count) app\(hosts.count == 1 ? "" : "s") before stopping")
        let saved = await Self.saveAll(hosts, engine: engine)
        logger.info("saved \(saved) of \(hosts.count) apps before stopping")
        power?.cancel()
        watchdog.cancel()
        await inhibitor?.release()
    }

    private func startPlugins() -> [AppHost] {
        let catalog = PluginLoader(directories: configuration.pluginDirectories).load(logger: logger)
        var hosts: [AppHost] = []
        for plugin in catalog.plugins {
            do {
                hosts.append(try AppHost(plugin: plugin, options: configuration.appOptions[plugin.appID] ?? [:], logger: logger))
            } catch {
                logger.error("\(plugin.appID): the plugin could not start: \(error)", metadata: ["app": "\(plugin.appID)"])
            }
        }
        return hosts
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

    /// The admin interface (more methods come with restored-ctl).
    private func managerInterface(hosts: [AppHost], inhibitor: LogindInhibitor?) -> DBusInterface {
        let engine = self.engine
        return DBusInterface(Self.interface, methods: [
            .init("Save", outputs: [.init("saved", "u")]) { call in
                try await Self.requireOwnUser(call)
                return [.uint32(UInt32(await Self.saveAll(hosts, engine: engine)))]
            },
        ], properties: [
            .init("Version", signature: "s", get: { .string(RestoredVersion.string) }),
            .init("Apps", signature: "as", get: { .strings(hosts.map(\.appID.rawValue)) }),
            .init("LockHeld", signature: "b", get: { .boolean(await inhibitor?.isHeld ?? false) }),
        ])
    }

    /// Refuses callers that run as another user, even on the session bus.
    static func requireOwnUser(_ call: DBusMethodCall) async throws {
        let uid = try await call.connection.unixUser(of: call.sender ?? "")
        guard uid == getuid() else {
            throw DBusError.accessDenied("restored serves only user \(getuid()); the caller runs as user \(uid)")
        }
    }
}
