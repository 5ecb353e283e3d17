import Logging
import RestoredEngine

/// The one path by which restored restores apps by itself: at a login's
/// start (``Login``) and at each desktop's start (``DesktopApps``), never
/// at an admin's request.
///
/// Each app's restore is queued on its own queue at once, before this
/// returns, so a save asked for afterwards (a suspend right after login)
/// runs after it and never writes the app's state from before its restore.
/// The restores run concurrently, within one walk's time from now, and
/// each result is logged once, as it comes (the admin API's signal is the
/// host's own).
struct AutomaticRestore: Sendable {
    let engine: RestorationEngine
    /// How long one restore may take before its plugin host is killed.
    let walkTimeout: Duration
    let logger: Logger

    /// Restores `hosts` for `trigger` (``ActivityTrigger/login``,
    /// ``ActivityTrigger/recovery`` or ``ActivityTrigger/session``); the task
    /// ends once every result is logged.
    func start(_ hosts: [AppHost], trigger: ActivityTrigger) -> Task<Void, Never> {
        let deadline = ContinuousClock.now + walkTimeout
        let restores = hosts.map { host in
            (host, host.startRestore(using: engine, mode: .automatic, trigger: trigger, deadline: deadline))
        }
        return Task { [logger] in
            await withTaskGroup(of: Void.self) { group in
                for (host, restore) in restores {
                    group.addTask {
                        let activity = AppActivity(await restore.value, trigger: trigger)
                        logger.log(level: activity.isFailure ? .warning : .info, "\(host.appID): \(activity.summary)", metadata: ["app": "\(host.appID)"])
                    }
                }
            }
        }
    }
}
