import FoundationEssentials
public import Logging
import LogoutSignals
import RestoredArchive
import RestoredDBus
import RestoredEngine
import RestoredSystemd
public import ServiceLifecycle
import SystemSupport

/// The restored daemon, as a service of a `ServiceGroup`: it composes the
/// parts and owns none of their state.
///
/// Start: load the plugins, own `org.restored1` on the session bus, restore
/// every app that has an archive (R7, R15; the apps of the graphical session
/// once a desktop is there), take logind's delay lock when logind is on the
/// system bus, register with the session manager when there is one, then
/// tell systemd it is ready. Running, each a job of its own: the watchdog,
/// saves before suspend and shutdown (``PowerEventCoordinator``), the
/// desktops of the login (``DesktopSession``: a desktop's start restores its
/// apps, its end saves them and keeps them for the next one), the session
/// manager's requests, autosave, an upgrade's restart
/// (``UpgradeService``); every save through one
/// ``SaveCoordinator``; the admin API (``DaemonControl``). Graceful shutdown
/// (SIGTERM at logout, SIGINT, or the session manager's Stop): save every
/// app, close the login's mark when the login ends (``SessionMarker``), tell
/// systemd it is stopping, release the lock.
public final class Daemon: Service {
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

    /// How long the save before stopping may take (restored.service allows 20 s).
    public static let stopSaveBudget = Duration.seconds(15)

    /// How long the login restore may hold up READY; apps still restoring
    /// then are named and finish in the background.
    public static let loginRestoreBudget = Duration.seconds(10)

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

    /// Runs until graceful shutdown, then saves every app.
    public func run() async throws {
        await registry.reload()
        let session: DBusConnection
        do {
            session = try await DBusConnection.connect(to: configuration.sessionBus)
        } catch {
            throw DBusError(name: error.name, message: "\(error.message); restored serves a desktop session: run it inside one (DBUS_SESSION_BUS_ADDRESS), or try scripts/demo")
        }
        defer { session.close() }
        // A restart inside a running login (a crash, an upgrade) finds the
        // apps live: each plugin is told it is a recovery, and only those
        // that restore into a running app are walked.
        let start: ActivityTrigger = marker.markStarted() ? .recovery : .login
        if start == .recovery {
            logger.notice("restored started again during the login: its apps are live, so only plugins that restore into a running app are restored")
        }
        let saves = SaveCoordinator(registry: registry, engine: engine, state: state, walkTimeout: configuration.walkTimeout, logger: logger)
        let probe = GraphicalSession(sessionBus: session, environment: environment)
        // Nudged as each save or restore ends, as the daemon's phase changes
        // (a save round's end) and as the desktop's does.
        let quiet = QuietMoment()
        state.onPhaseChange(quiet.nudge)
        let desktop = DesktopSession(probe: probe, startTrigger: start, logger: logger, phaseChanged: quiet.nudge)
        let logoutSignals = LogoutSignalFollower(
            session: session, environment: environment, logger: logger,
            save: { source, budget, answerWithin in await desktop.ending(source: source, budget: budget, answerWithin: answerWithin) },
            cancel: { source in desktop.send(.cancelled(source)) }
        )
        let apps = DesktopApps(
            registry: registry, engine: engine, saves: saves, logoutSignals: logoutSignals,
            environment: environment, walkTimeout: configuration.walkTimeout, logger: logger
        )
        // Apps of the graphical session wait for the desktop (their archive
        // untouched, no save) when it is not there yet; the rest (tmux) are
        // restored at once.
        let found = await probe.look()
        let present = found.isDesktop ? found : nil
        let waiting = apps.prepare(present: present)
        // Queue every app's restore first: a save asked for from now on (a
        // suspend at login, an admin call) runs after it on the app's queue.
        let restoreDeadline = ContinuousClock.now + configuration.walkTimeout
        let loginRestores = registry.hosts.filter { host in !waiting.contains { $0 === host } }.map {
            ($0, $0.startRestore(using: engine, mode: .automatic, trigger: start, deadline: restoreDeadline))
        }
        state.phase = .restoring
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
        try await session.requestName(Self.busName)

        // The daemon's jobs, from now until SIGTERM or SIGINT (through the
        // group that runs the daemon) or the session manager's Stop: the
        // watchdog, the power events and the desktops at once, the session
        // manager's requests and autosave once the login restore is done. At
        // graceful shutdown the group ends them in reverse order, each
        // finishing what it has begun (autosave first, the power events
        // last); then the daemon saves every app.
        let (ready, readiness) = AsyncStream<Void>.makeStream()
        var firstJobs: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: WatchdogService(notifier: notifier, ready: ready, logger: logger)),
        ]
        if let power {
            firstJobs.append(.init(service: power, successTerminationBehavior: .ignore))
        }
        firstJobs.append(.init(service: DesktopSessionService(
            session: desktop, present: present, actions: apps.actions, sessionBus: session, systemBus: system,
            logoutSignals: logoutSignals, runtimeDirectory: probe.runtimeDirectory, logger: logger
        )))
        let jobs = ServiceGroup(configuration: ServiceGroupConfiguration(services: firstJobs, logger: logger))
        async let jobsEnded: Void = run(jobs)

        await waitForLoginRestore(loginRestores, trigger: start)
        state.phase = .running

        let sessionManager = await followSessionManager(session, desktop: desktop)

        let count = registry.hosts.count
        try? notifier.ready(status: "Watching \(count) app\(count == 1 ? "" : "s")")
        readiness.yield()

        if let sessionManager {
            await jobs.addServiceUnlessShutdown(.init(service: sessionManager, successTerminationBehavior: .gracefullyShutdownGroup))
        }
        if let interval = configuration.autosaveInterval {
            let autosave = AutosaveService(interval: interval, saves: saves, logger: logger, isPaused: { desktop.report.phase == .ending })
            await jobs.addServiceUnlessShutdown(.init(service: autosave))
        }
        // An upgrade while restored runs: a restart into the new version
        // once no save runs (its end ends the jobs, as a stop does).
        let upgrade = UpgradeService(
            logger: logger, underServiceManager: UpgradeService.runsAsUnit(environment: environment),
            isQuiet: { [state, registry] in
                state.phase == .running && desktop.report.phase != .ending
                    && !registry.hosts.contains { $0.isRestoring || $0.saveInProgress != nil }
            },
            quiet: quiet,
            restart: { [state] in state.restartsForUpgrade = true },
            signal: upgradeSignal, executable: executable
        )
        await jobs.addServiceUnlessShutdown(.init(service: upgrade, successTerminationBehavior: .gracefullyShutdownGroup))
        await jobsEnded

        await saveBeforeStopping(saves, probe: SessionEndProbe(sessionBus: session, systemBus: system))
        registry.stopAll()
        await inhibitor?.release()
    }

    /// Runs the daemon's jobs until they end.
    private func run(_ jobs: ServiceGroup) async {
        do {
            try await jobs.run()
        } catch {
            logger.error("a job of the daemon failed (\(error)); saving every app and stopping")
        }
    }

    /// The save at SIGTERM, SIGINT or Stop, inside systemd's stop timeout:
    /// for the end of the login when `probe` finds a witness of it (the
    /// plugins are told, a decline keeps the last archive, and the login's
    /// mark is closed, so the next start is a login), otherwise for
    /// restored stopping alone.
    private func saveBeforeStopping(_ saves: SaveCoordinator, probe: SessionEndProbe) async {
        state.phase = .stopping
        let trigger: ActivityTrigger
        if let witness = await probe.witness() {
            logger.info("the session ends (\(witness)): saving every app for the session end")
            trigger = .logout
            marker.close()
            // The login ends: the next login starts the new version, no restart.
            state.restartsForUpgrade = false
        } else {
            trigger = .stop
        }
        // systemd waits TimeoutStopSec (20 s in restored.service): leave room.
        await saves.saveBeforeStopping(trigger: trigger, budget: Self.stopSaveBudget) { [notifier] count in
            try? notifier.stopping(status: "Saving \(count) app\(count == 1 ? "" : "s") before stopping")
        }
    }

    /// Waits for the restores queued at start (R7, R15), which run
    /// concurrently, each reporting its result; returns when all are done or
    /// ``loginRestoreBudget`` has passed.
    private func waitForLoginRestore(_ restores: [(AppHost, Task<RestorationReport, Never>)], trigger: ActivityTrigger) async {
        let hosts = restores.map(\.0)
        let finished = await Deadline.race(deadline: .now + Self.loginRestoreBudget) { [logger] in
            await withTaskGroup(of: Void.self) { group in
                for (host, restore) in restores {
                    group.addTask {
                        let activity = AppActivity(await restore.value, trigger: trigger)
                        logger.log(level: activity.isFailure ? .warning : .info, "\(host.appID): \(activity.summary)", metadata: ["app": "\(host.appID)"])
                    }
                }
            }
        }
        if !finished {
            let late = hosts.filter(\.isRestoring).map(\.appID.rawValue)
            logger.warning("still restoring after \(Self.loginRestoreBudget): \(late.joined(separator: ", ")); starting anyway, they finish in the background")
        }
        state.releaseFreedMemorySoon()
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
