import Logging
import RestoredEngine
import SystemSupport

/// A login as restored lives it, from its start to its end: the one place
/// that says what happens at each.
///
/// **Start** (``init(marker:registry:saves:state:restores:logger:)``, then
/// ``start(desktop:apps:)`` and ``awaitRestores(_:)``):
/// 1. restored's mark in the runtime directory (``SessionMarker``) tells the
///    login's start (``ActivityTrigger/login``) from a restart inside it, a
///    crash or an upgrade (``ActivityTrigger/recovery``: the apps are live,
///    so only plugins that restore into a running app are restored);
/// 2. which apps wait: with no desktop up, the plugins that need one wait for
///    it, restore and saves alike (``SaveCoordinator/awaitDesktop(_:)``);
///    with one up they take its variables;
/// 3. every other app is restored at once (``AutomaticRestore``, the same
///    path as a desktop's start), each queued on its app's queue before any
///    save can be asked for;
/// 4. READY waits for those restores for ``readinessBudget`` at most; apps
///    still restoring then are named and finish in the background.
///
/// **End** (``end(witnesses:stopping:)``, at SIGTERM, SIGINT or the session
/// manager's Stop, in the graceful shutdown of restored's service group while
/// the buses and the plugin hosts still run): a witness says whether the
/// login ends (``SessionEndProbe``); if it does, the mark is closed (the next
/// start is a login, and the new version of an upgrade starts then, with no
/// restart) and every app is saved for the session end (a plugin that finds
/// its app gone declines and the last archive is kept); otherwise for
/// restored stopping alone. Apps saved at the session's end moments before
/// are not saved again (``SaveCoordinator/saveBeforeStopping(trigger:budget:stopping:)``).
/// The whole save fits in ``stopSaveBudget``, inside systemd's stop timeout.
final class Login: Sendable {
    /// How long the save before stopping may take (restored.service allows 20 s).
    static let stopSaveBudget = Duration.seconds(15)

    /// How long the login's restore may hold up READY.
    static let readinessBudget = Duration.seconds(10)

    /// The start's trigger: ``ActivityTrigger/login``, or
    /// ``ActivityTrigger/recovery`` for restored started again inside it.
    let trigger: ActivityTrigger

    /// The restores a login's start queued.
    struct Restores: Sendable {
        /// The apps restored.
        let hosts: [AppHost]
        /// Ends once every result is logged.
        let done: Task<Void, Never>
    }

    private let marker: SessionMarker
    private let registry: AppRegistry
    private let saves: SaveCoordinator
    private let state: DaemonState
    private let restores: AutomaticRestore
    private let logger: Logger

    /// The login restored starts in: leaves restored's mark, which says
    /// whether it is the login's start or a restart inside it.
    init(marker: SessionMarker, registry: AppRegistry, saves: SaveCoordinator, state: DaemonState, restores: AutomaticRestore, logger: Logger) {
        self.marker = marker
        self.registry = registry
        self.saves = saves
        self.state = state
        self.restores = restores
        self.logger = logger
        trigger = marker.markStarted() ? .recovery : .login
        if trigger == .recovery {
            logger.notice("restored started again during the login: its apps are live, so only plugins that restore into a running app are restored")
        }
    }

    /// The login's start, with the desktop found up at restored's start (a
    /// finding that is a desktop; nil when none is up): the apps that need a desktop take its variables or wait for
    /// one; every other app's restore is queued now. Returns the restores,
    /// for ``awaitRestores(_:)``.
    func start(desktop: GraphicalSession.Finding?, apps: DesktopApps) -> Restores {
        if let desktop {
            apps.handOver(desktop.variables)
        } else {
            let waiting = apps.graphical
            saves.awaitDesktop(waiting)
            for host in waiting {
                let archived = (try? restores.engine.store.summary(of: host.appID)) != nil
                logger.notice(
                    "\(host.appID) waits for the desktop (graphical-session.target, or a display in the user manager's environment)\(archived ? " to be restored" : ""); it is not saved until then",
                    metadata: ["app": "\(host.appID)"]
                )
            }
        }
        let now = registry.hosts.filter { saves.state(of: $0.appID) == .live }
        state.phase = .restoring
        return Restores(hosts: now, done: restores.start(now, trigger: trigger))
    }

    /// Waits for the login's restores, for ``readinessBudget`` at most, then
    /// the daemon runs (and may tell systemd it is ready).
    func awaitRestores(_ restoring: Restores) async {
        let finished = await Deadline.race(deadline: .now + Self.readinessBudget) { await restoring.done.value }
        if !finished {
            let late = restoring.hosts.filter(\.isRestoring).map(\.appID.rawValue)
            logger.warning("still restoring after \(Self.readinessBudget): \(late.joined(separator: ", ")); starting anyway, they finish in the background")
        }
        state.releaseFreedMemorySoon()
        state.phase = .running
    }

    /// The login's end, or restored's alone: the save before stopping, for
    /// the end of the login when `witnesses` find a witness of it (the mark
    /// is closed then), otherwise for restored stopping alone; `stopping`
    /// gets the number of apps to save, as the save begins.
    func end(witnesses: SessionEndProbe, stopping: (Int) -> Void) async {
        state.phase = .stopping
        let trigger: ActivityTrigger
        if let witness = await witnesses.witness() {
            logger.info("the session ends (\(witness)): saving every app for the session end")
            trigger = .logout
            marker.close()
            // The login ends: the next login starts the new version, no restart.
            state.restartsForUpgrade = false
        } else {
            trigger = .stop
        }
        await saves.saveBeforeStopping(trigger: trigger, budget: Self.stopSaveBudget, stopping: stopping)
    }
}
