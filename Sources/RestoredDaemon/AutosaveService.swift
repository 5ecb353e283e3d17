import Logging
import RestoredEngine
import ServiceLifecycle

/// Every `interval`, saves the apps whose state changed, until graceful
/// shutdown; an idle desktop causes no writes.
///
/// Apps with a save or restore under way are left to it, and nothing is
/// autosaved while `isPaused` (between the session manager's EndSession and
/// the stop: apps quitting must not overwrite what the logout saved). A
/// round that has begun finishes before the service ends.
struct AutosaveService: Service {
    let interval: Duration
    let registry: AppRegistry
    let engine: RestorationEngine
    let walkTimeout: Duration
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
            await saveChanged()
        }
    }

    private func saveChanged() async {
        await withTaskGroup(of: Void.self) { group in
            for host in registry.hosts where host.saveInProgress == nil && !host.isRestoring {
                group.addTask { [engine, logger, walkTimeout] in
                    if await host.autosave(using: engine, deadline: .now + walkTimeout) == nil {
                        logger.debug("autosave: \(host.appID) unchanged", metadata: ["app": "\(host.appID)"])
                    }
                }
            }
        }
    }
}
