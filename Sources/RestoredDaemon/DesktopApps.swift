import Logging
import RestoredEngine

/// What the apps go through at a desktop's moments: the ``DesktopSession``'s
/// actions, over the app hosts.
///
/// A desktop's start is a login for the plugins that need the graphical
/// session (the descriptor's trait): they take its variables, and those
/// whose archives wait for it are restored (reason `session`, or `recovery`
/// for the desktop that ran before restored restarted). Its end is a
/// session end for them: saved as at a logout (a plugin that finds its app
/// gone keeps the last archive), then kept, so no autosave walks them and no
/// decline discards them until the next desktop. Plugins that need no
/// desktop (tmux) are saved with the others at a desktop's end (as at any
/// word of a logout), and otherwise follow the login: autosaved as before,
/// restored only at its start.
struct DesktopApps: Sendable {
    /// How long the save at a desktop's end may take: its apps are going or gone.
    static let endSaveBudget = Duration.seconds(5)

    let registry: AppRegistry
    let engine: RestorationEngine
    let saves: SaveCoordinator
    let logoutSignals: LogoutSignalFollower
    /// restored's own environment: a host starts again only for variables it lacks.
    let environment: [String: String]
    let walkTimeout: Duration
    let logger: Logger

    /// The hosts of plugins that need the graphical session.
    var graphical: [AppHost] {
        registry.hosts.filter { $0.identity.traits.contains(.needsGraphicalSession) }
    }

    /// The actions of a desktop session over these apps.
    var actions: DesktopSession.Actions {
        DesktopSession.Actions(
            started: { desktop, trigger in self.started(desktop, trigger: trigger) },
            ending: { source, asked, budget, answerWithin in
                await saves.saveForSessionEnd(source: source, asked: asked, budget: budget, answerWithin: answerWithin)
            },
            cancelled: { saves.forgetSessionEndSave() },
            ended: { desktop, reason, saved in await self.ended(desktop, reason: reason, savedAtEnding: saved) },
            variables: { variables in await logoutSignals.follow(variables) }
        )
    }

    /// The desktop's variables restored's own environment does not already
    /// have: only they make a plugin host start again with them.
    func newVariables(_ variables: [String: String]) -> [String: String] {
        variables.filter { environment[$0.key] != $0.value }
    }

    /// At restored's start: the graphical hosts take the desktop's variables
    /// when it is `present`; otherwise every one waits for it
    /// (``AppHost/awaitsDesktop``): its restore, if it has an archive, and
    /// its saves. A plugin that needs the desktop cannot see its app
    /// without it (nor before it has the desktop's variables): a save then
    /// would find nothing and discard the archive, or write an empty one
    /// over the next login's. Returns the hosts that wait.
    func prepare(present: GraphicalSession.Finding?) -> [AppHost] {
        let hosts = graphical
        if let present, present.isDesktop {
            let variables = newVariables(present.variables)
            for host in hosts { host.plugin.desktopEnvironment = variables }
            return []
        }
        for host in hosts {
            host.awaitsDesktop = true
            let archived = (try? engine.store.summary(of: host.appID)) != nil
            logger.notice(
                "\(host.appID) waits for the desktop (graphical-session.target, or a display in the user manager's environment)\(archived ? " to be restored" : ""); it is not saved until then",
                metadata: ["app": "\(host.appID)"]
            )
        }
        return hosts
    }

    /// A desktop is there: its variables for every graphical host, and a
    /// restore with `trigger` for those that wait, each queued now on its
    /// app's queue (a save asked for afterwards runs after it) and
    /// reported when done.
    func started(_ desktop: Desktop, trigger: ActivityTrigger) {
        // The save at the last desktop's end speaks for that desktop only.
        saves.forgetSessionEndSave()
        let variables = newVariables(desktop.variables)
        let deadline = ContinuousClock.now + walkTimeout
        for host in graphical {
            host.plugin.desktopEnvironment = variables
            guard host.awaitsDesktop else { continue }
            host.awaitsDesktop = false
            let restore = host.startRestore(using: engine, mode: .automatic, trigger: trigger, deadline: deadline)
            Task { [logger] in
                let activity = AppActivity(await restore.value, trigger: trigger)
                logger.log(level: activity.isFailure ? .warning : .info, "\(host.appID): \(activity.summary)", metadata: ["app": "\(host.appID)"])
            }
        }
    }

    /// The desktop ended: unless its ending saved them, every app is saved
    /// for the session end (a logout word of the desktop may come only as
    /// its display goes, as sway's does); then its apps are kept until the
    /// next desktop.
    func ended(_ desktop: Desktop, reason: String, savedAtEnding: Bool) async {
        logoutSignals.reset()
        let hosts = graphical.filter { !$0.awaitsDesktop }
        // Kept first: an autosave already under way walks nothing now.
        for host in hosts { host.awaitsDesktop = true }
        if !savedAtEnding {
            await saves.saveForSessionEnd(source: "the desktop ended: \(reason)", budget: Self.endSaveBudget, evenAwaitingDesktop: true)
        }
        if !hosts.isEmpty {
            logger.info("\(hosts.map(\.appID.rawValue).joined(separator: ", ")) kept until the next desktop")
        }
    }
}
