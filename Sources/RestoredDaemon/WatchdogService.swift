import Logging
import RestoredSystemd
import ServiceLifecycle

/// Sends systemd's watchdog keep-alives (`WATCHDOG=1`) every half
/// `WATCHDOG_USEC`, from the moment `ready` yields (the daemon has said
/// READY=1) until graceful shutdown. With the watchdog off it only waits for
/// graceful shutdown, so the group it runs in stays up.
struct WatchdogService: Service {
    let notifier: SystemdNotifier
    let ready: AsyncStream<Void>
    let logger: Logger

    func run() async throws {
        for await _ in ready.cancelOnGracefulShutdown() { break }
        guard notifier.isEnabled, notifier.watchdogInterval != nil, !Task.isShuttingDownGracefully else {
            try? await gracefulShutdown()
            return
        }
        do {
            try await cancelWhenGracefulShutdown { [notifier] in try await notifier.runWatchdog() }
        } catch {
            logger.error("cannot send systemd's watchdog keep-alive (\(error)); systemd may restart restored")
            try? await gracefulShutdown()
        }
    }
}
