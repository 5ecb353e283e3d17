import Logging
import LogoutSignals
import ServiceLifecycle

/// Answers the session manager's requests until graceful shutdown or its
/// `Stop`, when it returns so that the daemon's jobs end and the daemon
/// stops (run it with `successTerminationBehavior: .gracefullyShutdownGroup`).
///
/// `QueryEndSession` is answered at once; `EndSession` after `endSession`
/// (the desktop ending: the save at logout) has run; `CancelEndSession`
/// runs `cancelEndSession` (the ending called off). When the session manager leaves the bus, it waits for
/// graceful shutdown: logout then comes as SIGTERM.
struct SessionManagerService: Service {
    let client: SessionManagerClient
    let requests: AsyncStream<SessionManagerClient.Request>
    let logger: Logger
    let endSession: @Sendable () async -> Void
    let cancelEndSession: @Sendable () -> Void

    func run() async throws {
        for await request in requests.cancelOnGracefulShutdown() {
            switch request {
            case .queryEndSession:
                try? await client.respond()
            case .endSession:
                await endSession()
                try? await client.respond()
            case .cancelEndSession:
                cancelEndSession()
            case .stop:
                logger.info("the session manager asked restored to stop")
                return
            }
        }
        try? await gracefulShutdown()
    }
}
