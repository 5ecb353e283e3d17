import FoundationEssentials
public import Logging
import RestoredArchive
import RestoredDBus
import RestoredEngine
import RestoredSystemd
public import ServiceLifecycle
import Synchronization

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

    /// How long the login restore may hold up READY; apps still restoring
    /// then are named and finish in the background.
    public static let loginRestoreBudget = Duration.seconds(10)
    /// A save at logout that recent is trusted at the stop that follows:
    /// the apps may have quit since, and saving again could write less.
    public static let logoutSaveTrust = Duration.seconds(60)

    private let configuration: DaemonConfiguration
    private let logger: Logger
    private let notifier: SystemdNotifier
    private let engine: RestorationEngine
    private let startupID: String
    private let state = DaemonState()
    /// When the session manager's EndSession came; cleared by CancelEndSession.
    /// Autosave pauses while it is set: the apps may be quitting.
    private let logoutStart = Mutex<Date?>(nil)
    private let registry: AppRegistry
    /// Tells a login from a restart during the session.
    private let marker: SessionMarker
    /// restored's environment, for the desktop's variables.
    private let environment: [String: String]
    /// How often to look for the desktop while it is not there.
    static let desktopPollInterval = Duration.seconds(1)

    /// Creates the daemon; `environment` gives NOTIFY_SOCKET and WATCHDOG_USEC.
    public init(configuration: DaemonConfiguration, logger: Logger, environment: [String: String]) {
        self.configuration = configuration
        self.logger = logger
        self.notifier = SystemdNotifier(environment: environment)
        self.startupID = environment["DESKTOP_AUTOSTART_ID"] ?? ""
        self.marker = SessionMarker(stateDirectory: configuration.stateDirectory, environment: environment)
        self.environment = environment
        self.engine = RestorationEngine(store: ArchiveStore(directory: configuration.stateDirectory), logger: logger)
        self.registry = AppRegistry(
            loader: PluginLoader(directories: configuration.pluginDirectories),
            options: { [configuration, logger] in
                let files = AppOptionsFile.load(from: configuration.optionDirectories)
                for problem in files.problems { logger.error("\(problem)") }
                return files.options.merging(configuration.appOptions) { file, commandLine in file.merging(commandLine) { _, winner in winner } }
            },
            hostConfiguration: configuration.pluginHost, logger: logger
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
        // A restart during the session (a crash, an upgrade) finds the apps
        // live: each plugin is told it is a recovery, and only those that
        // restore into a running app are walked.
        let start: ActivityTrigger = marker.markStarted() ? .recovery : .login
        if start == .recovery {
            logger.notice("restored started again during the session: its apps are live, so only plugins that restore into a running app are restored")
        }
        // Apps of the graphical session wait for the desktop (their archive
        // untouched, no save) when it is not there yet; the rest (tmux) are
        // restored at once.
        let desktop = GraphicalSession(sessionBus: session, environment: environment)
        let present = await desktop.desktop()
        let waiting = hostsWaitingForDesktop(present, start: start)
        // Queue every app's restore first: a save asked for from now on (a
        // suspend at login, an admin call) runs after it on the app's queue.
        let restoreDeadline = ContinuousClock.now + configuration.walkTimeout
        let loginRestores = registry.hosts.filter { host in !waiting.contains { $0 === host } }.map {
            ($0, $0.startRestore(using: engine, mode: .automatic, trigger: start, deadline: restoreDeadline))
        }
        state.phase = .restoring
        let logoutSignals = LogoutSignalFollower(
            session: session, environment: environment, logger: logger,
            save: { source, budget, answerWithin in await self.saveAtLogout(source: source, budget: budget, answerWithin: answerWithin) },
            cancel: { self.logoutStart.withLock { start in defer { start = nil }; return start != nil } }
        )
        let desktopWatch = Task { await self.followDesktop(desktop, present: present, waiting: waiting, trigger: start, logoutSignals: logoutSignals) }
        defer {
            desktopWatch.cancel()
            logoutSignals.stop()
        }
        registry.onActivity { appID, activity in AdminInterface.emit(activity, of: appID, on: session) }
        let (inhibitor, power) = await startPowerEvents()
        // Serve the object before owning the name: calls queued by D-Bus
        // activation arrive as soon as the name is ours.
        let control = DaemonControl(
            registry: registry, engine: engine, state: state, inhibitor: inhibitor, walkTimeout: configuration.walkTimeout,
            saveAll: { hosts, trigger, deadline in await self.saveAll(hosts, trigger: trigger, deadline: deadline) }
        )
        let admin = AdminInterface(control: control, connection: session)
        session.export(path: Self.objectPath, interfaces: [admin.interface])
        await inhibitor?.observeHeld { held in
            try? session.emitPropertiesChanged(path: Self.objectPath, interface: Self.interface, changed: [("LockHeld", .boolean(held))])
        }
        try await session.requestName(Self.busName)

        // The daemon's jobs, from now until SIGTERM or SIGINT (through the
        // group that runs the daemon) or the session manager's Stop: the
        // watchdog and the power events at once, the session manager's
        // requests and autosave once the login restore is done. At graceful
        // shutdown the group ends them in reverse order, each finishing what
        // it has begun (autosave first, the power events last); then the
        // daemon saves every app.
        let (ready, readiness) = AsyncStream<Void>.makeStream()
        var firstJobs: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: WatchdogService(notifier: notifier, ready: ready, logger: logger)),
        ]
        if let power {
            firstJobs.append(.init(service: power, successTerminationBehavior: .ignore))
        }
        let jobs = ServiceGroup(configuration: ServiceGroupConfiguration(services: firstJobs, logger: logger))
        async let jobsEnded: Void = run(jobs)

        await waitForLoginRestore(loginRestores, trigger: start)
        state.phase = .running

        let sessionManager = await followSessionManager(session)

        let count = registry.hosts.count
        try? notifier.ready(status: "Watching \(count) app\(count == 1 ? "" : "s")")
        readiness.yield()

        if let sessionManager {
            await jobs.addServiceUnlessShutdown(.init(service: sessionManager, successTerminationBehavior: .gracefullyShutdownGroup))
        }
        if let interval = configuration.autosaveInterval {
            let autosave = AutosaveService(
                interval: interval, registry: registry, engine: engine, walkTimeout: configuration.walkTimeout,
                logger: logger, isPaused: { self.logoutStart.withLock { $0 } != nil }
            )
            await jobs.addServiceUnlessShutdown(.init(service: autosave))
        }
        await jobsEnded

        await saveBeforeStopping(probe: SessionEndProbe(sessionBus: session, systemBus: configuration.systemBus))
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
    /// for the end of the session when `probe` finds a witness of it (the
    /// plugins are told, and a decline keeps the last archive), otherwise
    /// for restored stopping alone. Apps saved at the session manager's
    /// EndSession moments ago are not saved again: they may have quit since.
    private func saveBeforeStopping(probe: SessionEndProbe) async {
        state.phase = .stopping
        let trigger: ActivityTrigger
        if let witness = await probe.witness() {
            logger.info("the session ends (\(witness)): saving every app for the session end")
            trigger = .logout
        } else {
            trigger = .stop
        }
        var remaining = registry.hosts
        if let logout = logoutStart.withLock({ $0 }), Date().timeIntervalSince(logout) < Double(Self.logoutSaveTrust.components.seconds) {
            // Each app saved at this logout is trusted on its own: a hung
            // plugin does not make the others save again.
            let trusted = remaining.filter { host in
                guard let last = host.lastActivity else { return false }
                guard case .save(let outcome) = last.outcome else { return false }
                // A partial save is a save: it is not done again while the apps quit.
                return last.trigger == .logout && outcome != .failed && last.time >= logout
            }
            if !trusted.isEmpty {
                logger.info("not saving \(trusted.map(\.appID.rawValue).joined(separator: ", ")) again: saved at logout moments ago")
            }
            remaining.removeAll { host in trusted.contains { $0 === host } }
        }
        let hosts = remaining
        try? notifier.stopping(status: "Saving \(hosts.count) app\(hosts.count == 1 ? "" : "s") before stopping")
        // systemd waits TimeoutStopSec (20 s in restored.service): leave room.
        let deadline = ContinuousClock.now + Self.stopSaveBudget
        let reports = Mutex<[PreservationReport]>([])
        let finished = await Deadline.race(deadline: deadline) {
            let done = await self.saveAll(hosts, trigger: trigger, deadline: deadline)
            reports.withLock { $0 = done }
        }
        if finished {
            let done = reports.withLock { $0 }
            let failed = done.filter { $0.word == .failed }.map(\.appID.rawValue).sorted()
            let partial = done.filter { $0.word == .partial }.map(\.appID.rawValue).sorted()
            var line = "before stopping: " + Self.tally(done)
            if !partial.isEmpty { line += "; saved partially: \(partial.joined(separator: ", ")) (their last complete archives are kept)" }
            if failed.isEmpty && partial.isEmpty {
                logger.info("\(line)")
            } else if failed.isEmpty {
                logger.warning("\(line)")
            } else {
                logger.error("\(line); not saved: \(failed.joined(separator: ", ")) (their last archives are kept)")
            }
        } else {
            logger.error("saving before stopping took longer than \(Self.stopSaveBudget); stopping anyway so systemd does not kill restored; not saved: \(Self.unfinished(hosts).joined(separator: ", "))")
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
    }

    /// The hosts of plugins that need the graphical session, when it is not
    /// there yet: at a login, those with an archive wait (``AppHost/awaitsDesktop``);
    /// the others take the desktop's variables now, or when it comes.
    private func hostsWaitingForDesktop(_ present: [String: String]?, start: ActivityTrigger) -> [AppHost] {
        let graphical = registry.hosts.filter { $0.identity.traits.contains(.needsGraphicalSession) }
        guard !graphical.isEmpty else { return [] }
        if let variables = present {
            let news = newDesktopVariables(variables)
            for host in graphical { host.plugin.desktopEnvironment = news }
            return []
        }
        for host in graphical where start == .login && (try? engine.store.summary(of: host.appID)) != nil {
            host.awaitsDesktop = true
            logger.notice("\(host.appID) waits for the desktop (graphical-session.target, or a display in the user manager's environment) to be restored; it is not saved until then", metadata: ["app": "\(host.appID)"])
        }
        return graphical
    }

    /// The desktop: when it is not `present` at start, looks for it every
    /// ``desktopPollInterval`` (every ten seconds after two minutes, so a
    /// session without one costs little), then gives `hosts` its variables
    /// and restores those that wait. Once it is there, follows what it says
    /// of the logout (``LogoutSignalFollower``).
    private func followDesktop(
        _ desktop: GraphicalSession, present: [String: String]?, waiting hosts: [AppHost], trigger: ActivityTrigger, logoutSignals: LogoutSignalFollower
    ) async {
        if let present {
            await logoutSignals.follow(present)
            await keepFollowing(desktop, logoutSignals: logoutSignals)
            return
        }
        let started = ContinuousClock.now
        var variables: [String: String]?
        while variables == nil {
            let interval = ContinuousClock.now - started < .seconds(120) ? Self.desktopPollInterval : Self.desktopPollInterval * 10
            guard (try? await Task.sleep(for: interval)) != nil else { return }
            variables = await desktop.desktop()
        }
        let found = variables ?? [:]
        let display = ["WAYLAND_DISPLAY", "DISPLAY"].compactMap { name in found[name].map { "\(name)=\($0)" } }.joined(separator: ", ")
        logger.info("the desktop is there (\(display.isEmpty ? "graphical-session.target is active" : display))")
        let deadline = ContinuousClock.now + configuration.walkTimeout
        await withTaskGroup(of: Void.self) { [engine, logger] group in
            for host in hosts {
                host.plugin.desktopEnvironment = newDesktopVariables(found)
                guard host.awaitsDesktop else { continue }
                host.awaitsDesktop = false
                let restore = host.startRestore(using: engine, mode: .automatic, trigger: trigger, deadline: deadline)
                group.addTask {
                    let activity = AppActivity(await restore.value, trigger: trigger)
                    logger.log(level: activity.isFailure ? .warning : .info, "\(host.appID): \(activity.summary)", metadata: ["app": "\(host.appID)"])
                }
            }
        }
        await logoutSignals.follow(found)
        await keepFollowing(desktop, logoutSignals: logoutSignals)
    }

    /// The desktop's variables restored's own environment does not already
    /// have: only they make a plugin host start again with them.
    private func newDesktopVariables(_ variables: [String: String]) -> [String: String] {
        variables.filter { environment[$0.key] != $0.value }
    }

    /// Looks at the desktop's variables every ``desktopPollInterval`` × 10
    /// until restored stops: a session manager's address or a window
    /// manager's socket often reaches the user manager after the display
    /// did (Debian's Xsession imports the display before xfce4-session
    /// starts and sets `SESSION_MANAGER`).
    private func keepFollowing(_ desktop: GraphicalSession, logoutSignals: LogoutSignalFollower) async {
        while (try? await Task.sleep(for: Self.desktopPollInterval * 10)) != nil {
            if let variables = await desktop.desktop() {
                await logoutSignals.follow(variables)
            }
        }
    }

    /// The delay lock and the job that saves on logind's events; nil when
    /// logind is not there.
    private func startPowerEvents() async -> (LogindInhibitor?, PowerEventService?) {
        guard let system = try? await DBusConnection.connect(to: configuration.systemBus),
              await system.owner(of: LogindInhibitor.busName) != nil
        else {
            logger.notice("logind is not reachable on the system bus: nothing is saved at suspend or shutdown; apps are still saved at logout (SIGTERM)")
            return (nil, nil)
        }
        let inhibitor = LogindInhibitor(connection: system, logger: logger)
        let registry = self.registry
        let coordinator = PowerEventCoordinator(inhibitor: inhibitor, logger: logger, unfinished: { Self.unfinished(registry.hosts) }) { trigger, deadline in
            await self.saveAll(registry.hosts, trigger: trigger, deadline: deadline)
        }
        guard let events = try? await inhibitor.events() else {
            logger.warning("cannot follow logind's signals; nothing is saved at suspend or shutdown")
            return (nil, nil)
        }
        state.logindReachable = true
        return (inhibitor, PowerEventService(coordinator: coordinator, events: events, systemBus: system))
    }

    /// Registers with the session manager and returns the job that answers
    /// its requests, saving every app before answering EndSession. Nil when
    /// there is no session manager: logout then comes as SIGTERM.
    private func followSessionManager(_ session: DBusConnection) async -> SessionManagerService? {
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
            endSession: { await self.saveAtLogout(source: "the session manager's EndSession", budget: LogoutSignalFollower.sessionManagerSaveBudget) },
            cancelEndSession: { self.logoutStart.withLock { $0 = nil } }
        )
    }

    /// The save when the desktop says the session ends (`source`), before
    /// the apps go, within `budget` (what the desktop waits, less a margin).
    /// Autosave pauses from now on, and the stop that follows within a
    /// minute trusts these saves.
    /// With `answerWithin` shorter than `budget` (the portal's second), it
    /// returns at `answerWithin` so the desktop gets its answer in time,
    /// while the saves still running go on until `budget`.
    func saveAtLogout(source: String, budget: Duration, answerWithin: Duration? = nil) async {
        let hosts = registry.hosts
        let already = logoutStart.withLock { start -> Bool in
            if let start, Date().timeIntervalSince(start) < Double(Self.logoutSaveTrust.components.seconds) { return true }
            start = Date()
            return false
        }
        if already {
            logger.info("the session ends (\(source)): every app was saved at this logout moments ago")
            return
        }
        logger.info("the session ends (\(source)): saving every app")
        let started = ContinuousClock.now
        let deadline = started + budget
        let answer = answerWithin.map { min(started + $0, deadline) } ?? deadline
        let finished = await Deadline.race(deadline: answer) {
            await self.saveAll(hosts, trigger: .logout, deadline: deadline)
        }
        if !finished {
            let limit = answer - started
            let unfinished = Self.unfinished(hosts).joined(separator: ", ")
            if answer < deadline {
                logger.warning("saving at logout (\(source)) took longer than \(limit); answering anyway; still saving, for up to \(budget) in all: \(unfinished)")
            } else {
                logger.error("saving at logout (\(source)) took longer than \(limit); going on anyway; not saved: \(unfinished)")
            }
        }
    }

    /// Saves `hosts` concurrently and records the round for `Status`; a
    /// plugin host that has not answered by `deadline` is killed.
    @discardableResult
    func saveAll(_ hosts: [AppHost], trigger: ActivityTrigger, deadline: ContinuousClock.Instant) async -> [PreservationReport] {
        state.beginSave()
        defer { state.endSave() }
        let reports = await withTaskGroup(of: PreservationReport.self) { [engine] group in
            for host in hosts {
                group.addTask { await host.preserve(using: engine, trigger: trigger, deadline: deadline) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let saved = reports.filter { $0.word == .saved || $0.word == .partial }.count
        let failed = reports.filter { $0.word == .failed }.count
        state.lastSave = DaemonState.SaveRound(trigger: trigger, time: Date(), saved: saved, failed: failed)
        return reports
    }

    /// How a round of saves went, in words: `2 saved, 1 kept its last archive, 1 failed`.
    static func tally(_ reports: [PreservationReport]) -> String {
        if reports.isEmpty { return "no app to save" }
        let counts = Dictionary(grouping: reports, by: \.word).mapValues(\.count)
        let words: [(SaveOutcome, String)] = [
            (.saved, "saved"), (.partial, "saved partially"), (.kept, "kept its last archive"), (.declined, "declined (archive discarded)"), (.failed, "failed"),
        ]
        return words.compactMap { word, text in counts[word].map { "\($0) \(text)" } }.joined(separator: ", ")
    }

    /// The apps of `hosts` with a save under way.
    static func unfinished(_ hosts: [AppHost]) -> [String] {
        hosts.filter { $0.saveInProgress != nil }.map(\.appID.rawValue)
    }
}
