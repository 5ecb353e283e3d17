import Logging
import RestoredDBus
import ServiceLifecycle

/// Runs the ``DesktopSession`` from restored's start until graceful
/// shutdown, with its sources: the user manager's signals, the display
/// sockets, logind's word on the user, and the desktop's own logout
/// signals (``LogoutSignalFollower``: what the session's actions follow is
/// heard in its task group, which lives as long as this service).
struct DesktopSessionService: Service {
    let session: DesktopSession
    /// The desktop found at start, if any.
    let present: GraphicalSession.Finding?
    let actions: DesktopSession.Actions
    let sessionBus: DBusConnection
    /// The system bus, when logind is there.
    let systemBus: DBusConnection?
    let logoutSignals: LogoutSignalFollower
    let runtimeDirectory: String?
    let logger: Logger

    func run() async throws {
        async let heard: Void = logoutSignals.run()
        await session.begin(with: present, actions: actions)
        let send: @Sendable (DesktopSession.Signal) -> Void = { [session] in session.send($0) }
        if !(await UserManagerWatch.start(on: sessionBus, send: send)) {
            logger.info("no user manager on the session bus: a desktop is found by its display's variables alone")
        }
        let sockets = DisplaySocketWatch(runtimeDirectory: runtimeDirectory, problem: { logger.notice("\($0)") }) { change in
            switch change {
            case .appeared(let display): send(.displayAppeared(display))
            case .removed(let display): send(.displayRemoved(display))
            }
        }
        // Without them, a look once a minute (one wake-up a minute, then only).
        let looks = sockets == nil ? Task {
            while (try? await Task.sleep(for: DisplaySocketWatch.lookInterval)) != nil {
                send(.lookOnceAMinute)
            }
        } : nil
        defer { looks?.cancel() }
        if let systemBus, !(await LogindUserWatch.start(on: systemBus, send: send)) {
            logger.info("logind does not say who the user is: a lingering user's desktop ends by its display alone")
        }
        // A display already up may export its variables after restored started.
        if present?.isDesktop != true {
            send(.look("restored started", settling: DisplaySocketWatch.anyDisplayUp(runtimeDirectory: runtimeDirectory)))
        }
        await withGracefulShutdownHandler {
            await session.run()
        } onGracefulShutdown: {
            session.finish()
        }
        sockets?.stop()
        await logoutSignals.stop()
        await heard
    }
}
