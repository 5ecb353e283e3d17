import FoundationEssentials
public import Logging
import LogoutSignals
import RestoredArchive
import RestoredDBus
import RestoredEngine
import RestoredSystemd
import ServiceLifecycle
import Synchronization
import SystemSupport

/// The restored daemon: it composes the parts and owns none of their state.
///
/// It runs as one flat `ServiceGroup` (``run()``), which ends at SIGTERM
/// (logout), SIGINT, the session manager's Stop or an upgrade's restart.
/// Its first service is restored's lifetime: load the plugins, own
/// `org.restored1` on the session bus, start the ``Login`` (its mark, the
/// apps that wait for a desktop, the restores; R7, R15), take logind's delay
/// lock when logind is on the system bus, and add the daemon's jobs to the
/// group as each can start: the watchdog, saves before suspend and shutdown
/// (``PowerEventCoordinator``) and the desktops of the login
/// (``DesktopSession``: a desktop's start restores its apps, its end saves
/// them and keeps them for the next one) at once; once the login's restores
/// are done (or ``Login/readinessBudget`` has passed) and systemd is told
/// READY, the session manager's requests, autosave and an upgrade's restart
/// (``UpgradeService``). Every save goes through one ``SaveCoordinator``;
/// the admin API is ``DaemonControl``. At graceful shutdown the group ends
/// the jobs in the reverse of that order, each finishing what it has begun
/// (the upgrade and autosave first, the watchdog last), and restored's
/// lifetime last: with the buses and the plugin hosts still up, the login's
/// end saves every app (``Login/end(witnesses:stopping:)``, in a task no
/// cancellation reaches), then the hosts stop and the lock is released. A
/// job returns only in its own turn of that shutdown (a job whose end ends
/// restored starts it), and a job that fails shuts the group down the same
/// way, so the apps are still saved (restored then exits with the failure,
/// and the unit's `Restart=on-failure` starts it again).
public final class Daemon: Sendable {
    /// The daemon's bus name.
    public static let busName = "org.restored1"
    /// The manager object.
    public static let objectPath = "/org/restored1"
    /// The manager interface.
    public static let interface = "org.restored1.Manager"
    /// The exit status of a stop to restart into the version an upgrade
    /// installed: not 0, so that the unit's `Restart=on-failure` starts it.
    public static let upgradeRestartStatus = UpgradeService.restartStatus

    /// Whether the daemon stopped to restart into the version an upgrade
    /// installed (exit with ``upgradeRestartStatus``).
    public var restartsForUpgrade: Bool { state.restartsForUpgrade }

    private let configuration: DaemonConfiguration
    private let logger: Logger
    private let notifier: SystemdNotifier
    private let engine: RestorationEngine
    private let startupID: String
    private let state = DaemonState()
    private let registry: AppRegistry
    /// Tells a login from a restart during the login.
    private let marker: SessionMarker
    /// restored's environment, for the desktop's variables.
    private let environment: [String: String]
    /// An upgrade seen while restored runs (``UpgradeService``).
    private let upgradeSignal = UpgradeSignal()
    /// restored's executable at its start, before an upgrade can replace it.
    private let executable = RunningExecutable()
    /// The service group of ``run()``, which the jobs join as they can start.
    private let group = Mutex<ServiceGroup?>(nil)

    /// Creates the daemon; `environment` gives NOTIFY_SOCKET and WATCHDOG_USEC.
    public init(configuration: DaemonConfiguration, logger: Logger, environment: [String: String]) {
        self.configuration = configuration
        self.logger = logger
        self.notifier = SystemdNotifier(environment: environment)
        self.startupID = environment["DESKTOP_AUTOSTART_ID"] ?? ""
        self.marker = SessionMarker(stateDirectory: configuration.stateDirectory, environment: environment)
        self.environment = environment
        self.engine = RestorationEngine(store: ArchiveStore(directory: configuration.stateDirectory), logger: logger)
        var hostConfiguration = configuration.pluginHost
        hostConfiguration.onVersionMismatch = { [upgradeSignal] in upgradeSignal.raise(.pluginHostMismatch($0)) }
        self.registry = AppRegistry(
            loader: PluginLoader(directories: configuration.pluginDirectories),
            options: { [configuration, logger] in
                let files = AppOptionsFile.load(from: configuration.optionDirectories)
                for problem in files.problems { logger.error("\(problem)") }
                return files.options.merging(configuration.appOptions) { file, commandLine in file.merging(commandLine) { _, winner in winner } }
            },
            hostConfiguration: hostConfiguration, logger: logger
        )
    }

    /// Runs the daemon until SIGTERM, SIGINT, the session manager's Stop or
    /// an upgrade's restart, and saves every app before it returns.
    public func run() async throws {
        // ServiceLifecycle handles no signal unless told: SIGTERM (logout)
        // and SIGINT. restored's lifetime also ends by itself once a job
        // shuts the group down (Stop, an upgrade): a clean end.
        let jobs = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [.init(service: Lifetime(daemon: self), successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ))
        group.withLock { $0 = jobs }
        try await jobs.run()
    }

    /// restored's lifetime, the group's first service (so its graceful
    /// shutdown comes last, after every job's).
    private struct Lifetime: Service {
        let daemon: Daemon
        func run() async throws { try await daemon.live() }
    }

    /// Adds a job to the group (unless it is shutting down). `endsRestored`:
    /// the job's end (the session manager's Stop, an upgrade's restart)
    /// shuts restored down.
    private func start(_ job: any Service, endsRestored: Bool = false) async {
        let jobs = group.withLock { $0 }
        let shutDown: @Sendable () async -> Void = { await jobs?.triggerGracefulShutdown() }
        await jobs?.addServiceUnlessShutdown(.init(
            service: Job(job: job, endsRestored: endsRestored, logger: logger, shutDown: shutDown),
            successTerminationBehavior: .gracefullyShutdownGroup, failureTerminationBehavior: .gracefullyShutdownGroup
        ))
    }

    /// A job of the daemon. It returns only in its own turn of the group's
    /// graceful shutdown: ServiceLifecycle cancels the whole group when a
    /// service returns while another one is being shut down, and a
    /// cancelled group would cut the stop's save short. So a job whose end
    /// ends restored starts that shutdown and waits for its turn, and one
    /// that ends early (logind's signals gone) waits for it too. A job that
    /// fails says so and throws: the group shuts down gracefully (the apps
    /// are saved), and restored exits with the failure.
    private struct Job: Service, CustomStringConvertible {
        let job: any Service
        let endsRestored: Bool
        let logger: Logger
        let shutDown: @Sendable () async -> Void
        var description: String { "\(type(of: job))" }

        func run() async throws {
            do {
                try await job.run()
            } catch {
                logger.error("a job of restored failed (\(description): \(error)); saving every app and stopping")
                throw error
            }
            if endsRestored { await shutDown() }
            try? await gracefulShutdown()
        }
    }

    /// From restored's start to its end: the parts, the login's start, the
    /// jobs; at graceful shutdown, the login's end.
    private func live() async throws {
        await registry.reload()
        let session: DBusConnection
        do {
            session = try await DBusConnection.connect(to: configuration.sessionBus)
        } catch {
            throw DBusError(name: error.name, message: "\(error.message); restored serves a desktop session: run it inside one (DBUS_SESSION_BUS_ADDRESS), or try scripts/demo")
        }
        defer { session.close() }
        let saves = SaveCoordinator(registry: registry, engine: engine, state: state, walkTimeout: configuration.walkTimeout, logger: logger)
        let restores = AutomaticRestore(engine: engine, walkTimeout: configuration.walkTimeout, logger: logger)
        let login = Login(marker: marker, registry: registry, saves: saves, state: state, restores: restores, logger: logger)
        let probe = GraphicalSession(sessionBus: session, environment: environment)
        // Nudged as each save or restore ends, as the daemon's phase changes
        // (a save round's end) and as the desktop's does.
        let quiet = QuietMoment()
        state.onPhaseChange(quiet.nudge)
        let desktop = DesktopSession(probe: probe, startTrigger: login.trigger, logger: logger, phaseChanged: quiet.nudge)
        let logoutSignals = LogoutSignalFollower(
            session: session, environment: environment, logger: logger,
            save: { source, budget, answerWithin in await desktop.ending(source: source, budget: budget, answerWithin: answerWithin) },
            cancel: { source in desktop.send(.cancelled(source)) }
        )
        let apps = DesktopApps(registry: registry, saves: saves, restores: restores, logoutSignals: logoutSignals, environment: environment)
        // Every restore is queued before anything can ask for a save (a
        // suspend at login, an admin call): that save runs after it, on the
        // app's queue.
        let found = await probe.look()
        let present = found.isDesktop ? found : nil
        let restoring = login.start(desktop: present, apps: apps)
        registry.onActivity { appID, activity in
            AdminInterface.emit(activity, of: appID, on: session)
            quiet.nudge()
        }
        let (inhibitor, power, system) = await startPowerEvents(saves)
        defer { system?.close() }
        // Serve the object before owning the name: calls queued by D-Bus
        // activation arrive as soon as the name is ours.
        let control = DaemonControl(
            registry: registry, engine: engine, state: state, inhibitor: inhibitor, walkTimeout: configuration.walkTimeout,
            saves: saves, desktop: { desktop.report }
        )
        let admin = AdminInterface(control: control, connection: session)
        session.export(path: Self.objectPath, interfaces: [admin.interface])
        await inhibitor?.observeHeld { held in
            try? session.emitPropertiesChanged(path: Self.objectPath, interface: Self.interface, changed: [("LockHeld", .boolean(held))])
        }
        do {
            try await session.requestName(Self.busName)
        } catch {
            throw DBusError(name: error.name, message: "\(error.message): another restored runs in this session; stop it first (systemctl --user stop restored)")
        }

        // The jobs that run at once: the watchdog (which tells systemd READY
        // once `readiness` says so), the power events and the desktops.
        let (ready, readiness) = AsyncStream<Void>.makeStream()
        await start(WatchdogService(notifier: notifier, ready: ready, logger: logger))
        if let power {
            await start(power)
        }
        await start(DesktopSessionService(
            session: desktop, present: present, actions: apps.actions, sessionBus: session, systemBus: system,
            logoutSignals: logoutSignals, runtimeDirectory: probe.runtimeDirectory, logger: logger
        ))

        await login.awaitRestores(restoring)
        let sessionManager = await followSessionManager(session, desktop: desktop)
        let count = registry.hosts.count
        try? notifier.ready(status: "Watching \(count) app\(count == 1 ? "" : "s")")
        readiness.yield()

        // The jobs that run once the login's restores are done.
        if let sessionManager {
            await start(sessionManager, endsRestored: true)
        }
        if let interval = configuration.autosaveInterval {
            await start(AutosaveService(interval: interval, saves: saves, logger: logger, isPaused: { desktop.report.phase == .ending }))
        }
        // An upgrade while restored runs: a restart into the new version
        // once nothing is saved or restored and no desktop ends.
        await start(UpgradeService(
            logger: logger, underServiceManager: UpgradeService.runsAsUnit(environment: environment),
            isQuiet: { saves.isIdle && desktop.report.phase != .ending },
            quiet: quiet,
            restart: { [state] in state.restartsForUpgrade = true },
            signal: upgradeSignal, executable: executable
        ), endsRestored: true)

        // Every job has ended by the time this returns (this service is the
        // group's first, so the last to be shut down).
        try? await gracefulShutdown()
        // Never cancelled: where the group was cancelled all the same (a
        // job of a library's own), the apps are still saved in full.
        let witnesses = SessionEndProbe(sessionBus: session, systemBus: system)
        await Task { [notifier] in
            await login.end(witnesses: witnesses) { count in
                try? notifier.stopping(status: "Saving \(count) app\(count == 1 ? "" : "s") before stopping")
            }
        }.value
        registry.stopAll()
        await inhibitor?.release()
    }

    /// The delay lock, the job that saves on logind's events, and the
    /// system bus they use; nils when logind is not there.
    private func startPowerEvents(_ saves: SaveCoordinator) async -> (LogindInhibitor?, PowerEventService?, DBusConnection?) {
        guard let system = try? await DBusConnection.connect(to: configuration.systemBus) else {
            logger.notice("the system bus is not reachable: nothing is saved at suspend or shutdown; apps are still saved at logout (SIGTERM)")
            return (nil, nil, nil)
        }
        guard await system.owner(of: LogindInhibitor.busName) != nil else {
            logger.notice("logind is not reachable on the system bus: nothing is saved at suspend or shutdown; apps are still saved at logout (SIGTERM)")
            return (nil, nil, system)
        }
        let inhibitor = LogindInhibitor(connection: system, logger: logger)
        let registry = self.registry
        let coordinator = PowerEventCoordinator(inhibitor: inhibitor, logger: logger, unfinished: { SaveCoordinator.unfinished(registry.hosts) }) { trigger, deadline in
            await saves.save(registry.hosts, trigger: trigger, deadline: deadline)
        }
        guard let events = try? await inhibitor.events() else {
            logger.warning("cannot follow logind's signals; nothing is saved at suspend or shutdown")
            return (nil, nil, system)
        }
        state.logindReachable = true
        return (inhibitor, PowerEventService(coordinator: coordinator, events: events, systemBus: system), system)
    }

    /// Registers with the session manager and returns the job that answers
    /// its requests: its EndSession is the desktop ending (every app saved
    /// before the answer). Nil when there is no session manager: logout
    /// then comes as SIGTERM.
    private func followSessionManager(_ session: DBusConnection, desktop: DesktopSession) async -> SessionManagerService? {
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
        state.sessionManagerRegistered = true
        return SessionManagerService(
            client: client, requests: requests, logger: logger,
            endSession: {
                await desktop.ending(source: "the session manager's EndSession", budget: LogoutSignalFollower.sessionManagerSaveBudget, answerWithin: nil)
            },
            cancelEndSession: { desktop.send(.cancelled("the session manager's CancelEndSession")) }
        )
    }
}
