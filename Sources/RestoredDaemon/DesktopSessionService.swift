import Logging
import RestoredDBus
import ServiceLifecycle

/// Runs the ``DesktopSession`` from restored's start until graceful
/// shutdown, with its sources, each an async sequence heard by a child of
/// one task group: the user manager's signals, the display sockets,
/// logind's word on the user, and the desktop's own logout signals
/// (``LogoutSignalFollower``, whose sources the session's actions add).
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
        await session.begin(with: present, actions: actions)
        let send: @Sendable (DesktopSession.Signal) -> Void = { [session] in session.send($0) }
        let manager = await UserManagerWatch.subscribe(on: sessionBus)
        if manager == nil {
            logger.info("no user manager on the session bus: a desktop is found by its display's variables alone")
        }
        let sockets = DisplaySocketWatch(runtimeDirectory: runtimeDirectory, problem: { logger.notice("\($0)") })
        let logind = if let systemBus { await LogindUserWatch.subscribe(on: systemBus) } else { nil as LogindUserWatch? }
        if systemBus != nil && logind == nil {
            logger.info("logind does not say who the user is: a lingering user's desktop ends by its display alone")
        }
        // Every source in one task group, each handing its signals to the
        // session until the session ends; then each is stopped (the socket
        // watch, the logout signals) or cancelled (the buses' signals).
        await withDiscardingTaskGroup { group in
            group.addTask { await logoutSignals.run() }
            if let manager {
                group.addTask { await manager.run(send: send) }
            }
            if let logind {
                group.addTask { await logind.run(send: send) }
            }
            if let sockets {
                group.addTask {
                    for await change in sockets.changes {
                        switch change {
                        case .appeared(let display): send(.displayAppeared(display))
                        case .removed(let display): send(.displayRemoved(display))
                        }
                    }
                }
            } else {
                // Without them, a look once a minute (one wake-up a minute, then only).
                group.addTask {
                    while (try? await Task.sleep(for: DisplaySocketWatch.lookInterval)) != nil {
                        send(.lookOnceAMinute)
                    }
                }
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
            group.cancelAll()
        }
    }
}
