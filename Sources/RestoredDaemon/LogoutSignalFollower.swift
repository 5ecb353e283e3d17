import Logging
import LogoutSignals
import RestoredDBus
import SystemPackage
import WindowManagerIPC

/// What the desktop says of its end, before the apps go, followed while a
/// desktop runs: the desktop portal's Inhibit monitor (its QUERY_END), the
/// X session manager (XSMP `SaveYourself`), and the i3/sway IPC. (The
/// session manager's EndSession and logind's PrepareForShutdown are
/// followed by the daemon from the start.) Each signal is tried once per
/// desktop: what fails says so once, not at every look; ``reset()`` at the
/// desktop's end stops them all, and the next desktop's are tried afresh.
/// Several may speak at one logout: they all reach the ``DesktopSession``,
/// where the first saves and the others find it done.
///
/// One model for all of them: each followed source is an async sequence of
/// its words (``Source``), heard by a child of one task group (``run()``)
/// for as long as the source lives; stopping a source ends its sequence.
/// Which were tried is the actor's own state, touched only through the
/// desktop session's actions. An XSMP `SaveYourself` is answered when its
/// save is done, through the answer it carries: no thread waits for it.
actor LogoutSignalFollower {
    /// When restored answers the portal's QUERY_END at the latest: the portal
    /// waits a second for the answer. Saves still running go on.
    static let portalQueryEndBudget = Duration.milliseconds(900)
    /// How long a session manager's logout save may take (gnome-session
    /// and xfce4-session wait about ten seconds for the answer).
    static let sessionManagerSaveBudget = Duration.seconds(8)
    /// How long the save at a window manager's exit may take: i3 and sway
    /// wait for nobody, and the display goes with them.
    static let windowManagerExitBudget = Duration.seconds(5)
    /// How many looks at a display read its root window: two minutes of
    /// looks every ten seconds.
    static let rootWindowLooks = 12

    /// Saves every app for the session end: what said so, the budget, and
    /// when to return at the latest (the portal's answer).
    typealias Save = @Sendable (_ source: String, _ budget: Duration, _ answerWithin: Duration?) async -> Void
    /// Calls off the logout under way; the argument says who did.
    typealias Cancel = @Sendable (String) -> Void

    /// A followed source of logout words.
    enum Source: Sendable {
        /// The desktop portal's session monitor.
        case portal(PortalLogoutMonitor)
        /// The X session manager, and its events.
        case sessionManager(XSMPClient, AsyncStream<XSMPClient.Event>)
        /// The window manager's IPC, and its one event.
        case windowManager(WindowManagerExitWatch, AsyncStream<WindowManagerExitWatch.Event>)

        /// Stops it: its sequence ends.
        func stop() async {
            switch self {
            case .portal(let monitor): await monitor.close()
            case .sessionManager(let client, _): client.stop()
            case .windowManager(let watch, _): watch.stop()
            }
        }

        /// Whether it is the desktop's session manager or window manager
        /// (the portal, which any desktop may offer, is not).
        var isManager: Bool {
            if case .portal = self { return false }
            return true
        }
    }

    private let session: DBusConnection
    private let environment: [String: String]
    private let logger: Logger
    private let save: Save
    private let cancel: Cancel
    /// The sources for ``run()`` to hear.
    private let sources: AsyncStream<Source>
    private let newSource: AsyncStream<Source>.Continuation
    /// The signals tried so far.
    private var attempted: Set<String> = []
    /// How often the root window of each display was read for i3's socket.
    private var rootWindowReads: [String: Int] = [:]
    /// The sources followed for the running desktop.
    private var followed: [Source] = []

    /// A follower on the session bus `session`; `environment` is restored's own.
    init(session: DBusConnection, environment: [String: String], logger: Logger, save: @escaping Save, cancel: @escaping Cancel) {
        self.session = session
        self.environment = environment
        self.logger = logger
        self.save = save
        self.cancel = cancel
        (sources, newSource) = AsyncStream.makeStream()
    }

    /// Hears every source followed from now until ``stop()``, each in a
    /// child task of its own; returns once all have ended.
    nonisolated func run() async {
        await withDiscardingTaskGroup { group in
            for await source in sources {
                group.addTask { await self.hear(source) }
            }
        }
    }

    /// Follows every signal the desktop's `variables` (over restored's own
    /// environment) name and that is not followed yet; true once the
    /// desktop's session manager or window manager is followed (the portal,
    /// which any desktop may offer, does not count: an X session manager's
    /// address is often exported after it).
    func follow(_ variables: [String: String]) async -> Bool {
        if firstAttempt("portal") {
            await followPortal()
        }
        var all = environment
        all.merge(variables) { _, desktop in desktop }
        if let address = XSMPClient.address(environment: all), firstAttempt("xsmp " + address) {
            followSessionManager(address)
        }
        // i3 names its socket on the root window, maybe after the display
        // reached restored: read for the first ``rootWindowLooks`` looks at
        // a display, not at every look for the session's life.
        let display = all["DISPLAY"] ?? ""
        rootWindowReads[display, default: 0] += 1
        let readingRootWindow = rootWindowReads[display, default: 0] <= Self.rootWindowLooks
        if let socket = WindowManagerConnection.socket(environment: all, readingRootWindow: readingRootWindow), firstAttempt("ipc " + socket.string) {
            followWindowManager(socket)
        }
        return followed.contains { $0.isManager }
    }

    /// Stops following everything, and ends ``run()``.
    func stop() async {
        await stopFollowed()
        newSource.finish()
    }

    /// The desktop ended: stops following its signals, and forgets which
    /// were tried, so the next desktop's are followed afresh.
    func reset() async {
        await stopFollowed()
        attempted.removeAll()
        rootWindowReads.removeAll()
    }

    private func stopFollowed() async {
        let stopping = followed
        followed.removeAll()
        for source in stopping { await source.stop() }
    }

    /// `source` is followed from now on, heard by ``run()``.
    private func add(_ source: Source) {
        followed.append(source)
        newSource.yield(source)
    }

    private func firstAttempt(_ signal: String) -> Bool {
        attempted.insert(signal).inserted
    }

    /// The desktop portal's session monitor, if there is one.
    private func followPortal() async {
        do {
            guard let monitor = try await PortalLogoutMonitor.open(on: session) else { return }
            logger.info("following the desktop portal's session monitor: a logout's QUERY_END saves every app before the portal's answer")
            add(.portal(monitor))
        } catch {
            logger.info("no session monitor from the desktop portal (\(error.message))")
        }
    }

    /// The X session manager at `address`: its `SaveYourself` at logout
    /// saves every app before the answer.
    private func followSessionManager(_ address: String) {
        let client: XSMPClient
        do {
            client = try XSMPClient(address: address)
        } catch {
            logger.notice("cannot register with the X session manager at \(address) (\(error)); its logout is seen only when restored is stopped")
            return
        }
        add(.sessionManager(client, client.events()))
        logger.info("registered with the X session manager as \(client.clientID): its SaveYourself at logout saves every app before the answer")
    }

    /// The i3/sway IPC at `socket`.
    private func followWindowManager(_ socket: FilePath) {
        do {
            let watch = try WindowManagerExitWatch(socket: socket)
            add(.windowManager(watch, watch.events()))
            logger.info("following the window manager's IPC at \(socket.string): its exit saves every app")
        } catch {
            logger.notice("cannot follow the window manager's IPC at \(socket.string) (\(error)); its exit is seen only when restored is stopped")
        }
    }

    /// Hears one source's words until its sequence ends.
    private nonisolated func hear(_ source: Source) async {
        switch source {
        case .portal(let monitor):
            // At QUERY_END: save within the portal's second, then answer; a
            // RUNNING after it is a cancelled logout.
            for await state in monitor.states() {
                switch state {
                case .queryEnd:
                    await save("the desktop portal's QUERY_END", Self.sessionManagerSaveBudget, Self.portalQueryEndBudget)
                    do {
                        try await monitor.respondToQueryEnd()
                    } catch {
                        logger.warning("could not answer the desktop portal's QUERY_END (\(error.message))")
                    }
                case .running:
                    cancel("the desktop portal says the session runs")
                case .ending:
                    await save("the desktop portal's ENDING", Self.windowManagerExitBudget, nil)
                }
            }
        case .sessionManager(_, let events):
            for await event in events {
                switch event {
                case .saveYourself(let answer):
                    await save("the X session manager's SaveYourself", Self.sessionManagerSaveBudget, nil)
                    answer.done()
                case .shutdownCancelled:
                    cancel("the X session manager's ShutdownCancelled")
                case .ended(let reason):
                    logger.info("no longer following the X session manager (\(reason))")
                }
            }
        case .windowManager(_, let events):
            for await event in events {
                switch event {
                case .exiting(let how):
                    await save("the window manager is exiting (\(how))", Self.windowManagerExitBudget, nil)
                case .lost(let problem):
                    logger.info("no longer following the window manager's IPC (\(problem))")
                }
            }
        }
    }
}
