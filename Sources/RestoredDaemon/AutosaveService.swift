import Logging
import ServiceLifecycle

/// Every `interval`, asks the save coordinator to save the apps whose
/// state changed (``SaveCoordinator/autosave()``), until graceful shutdown;
/// an idle desktop causes no writes.
///
/// Nothing is autosaved while `isPaused` (the desktop says it ends: apps
/// quitting must not overwrite what the logout saved). A round that has
/// begun finishes before the service ends.
struct AutosaveService: Service {
    let interval: Duration
    let saves: SaveCoordinator
    let logger: Logger
    let isPaused: @Sendable () -> Bool

    func run() async throws {
        while !Task.isShuttingDownGracefully {
            do {
                try await cancelWhenGracefulShutdown { [interval] in try await Task.sleep(for: interval) }
            } catch {
                return
            }
            guard !Task.isShuttingDownGracefully else { return }
            if isPaused() {
                logger.debug("autosave: paused while the session ends")
                continue
            }
            await saves.autosave()
        }
    }
}
