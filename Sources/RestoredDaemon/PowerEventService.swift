import RestoredDBus
import ServiceLifecycle

/// Runs a ``PowerEventCoordinator`` on logind's events until graceful
/// shutdown, keeping the system bus connection they arrive on open.
///
/// A save under way when graceful shutdown comes finishes first; the delay
/// lock stays held (the daemon releases it after its last save).
struct PowerEventService: Service {
    let coordinator: PowerEventCoordinator
    let events: AsyncStream<LogindEvent>
    let systemBus: DBusConnection

    func run() async throws {
        await coordinator.run(events.cancelOnGracefulShutdown())
        withExtendedLifetime(systemBus) {}
    }
}
