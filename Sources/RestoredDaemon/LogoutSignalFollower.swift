import Dispatch
import Logging
import LogoutSignals
import RestoredDBus
import Synchronization
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
final class LogoutSignalFollower: Sendable {
    /// When restored answers the portal's QUERY_END at the latest: the portal
    /// waits a second for the answer. Saves still running go on.
    static let portalQueryEndBudget = Duration.milliseconds(900)
    /// How long a session manager's logout save may take (gnome-session
    /// and xfce4-session wait about ten seconds for the answer).
    static let sessionManagerSaveBudget = Duration.seconds(8)
    /// How long the save at a window manager's exit may take: i3 and sway
    /// wait for nobody, and the display goes with them.
    static let windowManagerExitBudget = Duration.seconds(5)

    /// Saves every app for the session end: what said so, the budget, and
    /// when to return at the latest (the portal's answer).
    typealias Save = @Sendable (_ source: String, _ budget: Duration, _ answerWithin: Duration?) async -> Void
    /// Calls off the logout under way; the argument says who did.
    typealias Cancel = @Sendable (String) -> Void

    private let session: DBusConnection
    private let environment: [String: String]
    private let logger: Logger
    private let save: Save
    private let cancel: Cancel
    /// The signals tried so far.
    private let attempted = Mutex<Set<String>>([])
    /// How often the root window of each display was read for i3's socket.
    private let rootWindowReads = Mutex<[String: Int]>([:])
    /// How many looks at a display read its root window: two minutes of
    /// looks every ten seconds.
    static let rootWindowLooks = 12
    /// How each followed signal stops.
    private let stops = Mutex<[@Sendable () -> Void]>([])
    /// Whether the desktop's session manager (XSMP) or window manager
    /// (IPC) is followed: then nothing later exported can add one.
    private let following = Atomic<Bool>(false)

    /// A follower on the session bus `session`; `environment` is restored's own.
    init(session: DBusConnection, environment: [String: String], logger: Logger, save: @escaping Save, cancel: @escaping Cancel) {
        self.session = session
        self.environment = environment
        self.logger = logger
        self.save = save
        self.cancel = cancel
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
        let readingRootWindow = rootWindowReads.withLock { reads in
            let display = all["DISPLAY"] ?? ""
            reads[display, default: 0] += 1
            return reads[display, default: 0] <= Self.rootWindowLooks
        }
        if let socket = WindowManagerConnection.socket(environment: all, readingRootWindow: readingRootWindow), firstAttempt("ipc " + socket.string) {
            followWindowManager(socket)
        }
        return following.load(ordering: .relaxed)
    }

    /// Stops following everything.
    func stop() {
        let all = stops.withLock { stops in
            defer { stops.removeAll() }
            return stops
        }
        all.forEach { $0() }
    }

    /// The desktop ended: stops following its signals, and forgets which
    /// were tried, so the next desktop's are followed afresh.
    func reset() {
        stop()
        attempted.withLock { $0.removeAll() }
        rootWindowReads.withLock { $0.removeAll() }
        following.store(false, ordering: .relaxed)
    }

    /// A signal is followed from now on; `stop` ends it. `ofManager`: the
    /// desktop's session manager or window manager.
    private func followed(ofManager: Bool = true, _ stop: @escaping @Sendable () -> Void) {
        stops.withLock { $0.append(stop) }
        if ofManager { following.store(true, ordering: .relaxed) }
    }

    private func firstAttempt(_ signal: String) -> Bool {
        attempted.withLock { $0.insert(signal).inserted }
    }

    /// The desktop portal's session monitor, if there is one.
    private func followPortal() async {
        do {
            guard let monitor = try await PortalLogoutMonitor.open(on: session) else { return }
            logger.info("following the desktop portal's session monitor: a logout's QUERY_END saves every app before the portal's answer")
            let task = Task { await self.answer(monitor) }
            followed(ofManager: false) {
                task.cancel()
                Task { await monitor.close() }
            }
        } catch {
            logger.info("no session monitor from the desktop portal (\(error.message))")
        }
    }

    /// Answers the portal's session states until stopped: saves at QUERY_END
    /// within the portal's second, then answers; a RUNNING after it is a
    /// cancelled logout.
    private func answer(_ monitor: PortalLogoutMonitor) async {
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
        let save = self.save
        client.follow(saveYourself: {
            // On the client's queue, which the session manager waits on.
            let done = DispatchSemaphore(value: 0)
            Task {
                await save("the X session manager's SaveYourself", Self.sessionManagerSaveBudget, nil)
                done.signal()
            }
            done.wait()
        }, cancelled: { [cancel] in
            cancel("the X session manager's ShutdownCancelled")
        }, ended: { [logger] reason in
            logger.info("no longer following the X session manager (\(reason))")
        })
        followed(client.stop)
        logger.info("registered with the X session manager as \(client.clientID): its SaveYourself at logout saves every app before the answer")
    }

    /// The i3/sway IPC at `socket`.
    private func followWindowManager(_ socket: FilePath) {
        do {
            let watch = try WindowManagerExitWatch(socket: socket)
            let save = self.save
            watch.watch(exiting: { how in
                Task { await save("the window manager is exiting (\(how))", Self.windowManagerExitBudget, nil) }
            }, lost: { [logger] problem in
                logger.info("no longer following the window manager's IPC (\(problem))")
            })
            followed(watch.stop)
            logger.info("following the window manager's IPC at \(socket.string): its exit saves every app")
        } catch {
            logger.notice("cannot follow the window manager's IPC at \(socket.string) (\(error)); its exit is seen only when restored is stopped")
        }
    }
}
