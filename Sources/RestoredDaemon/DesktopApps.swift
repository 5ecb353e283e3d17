import Logging
import RestoredEngine

/// What the apps go through at a desktop's moments: the ``DesktopSession``'s
/// actions, over the app hosts.
///
/// A desktop's start is a login for the plugins that need the graphical
/// session (the descriptor's trait): they take its variables, and those
/// whose archives wait for it are restored (``AutomaticRestore``, reason
/// `session`, or `recovery` for the desktop that ran before restored
/// restarted). Its end is a session end for them: saved as at a logout (a
/// plugin that finds its app gone keeps the last archive), then kept, so no
/// save walks them and no decline discards them until the next desktop
/// (``SaveCoordinator`` keeps that state). Plugins that need no desktop
/// (tmux) are saved with the others at a desktop's end (as at any word of a
/// logout), and otherwise follow the login: autosaved as before, restored
/// only at its start.
struct DesktopApps: Sendable {
    let registry: AppRegistry
    let saves: SaveCoordinator
    let restores: AutomaticRestore
    let logoutSignals: LogoutSignalFollower
    /// restored's own environment: a host starts again only for variables it lacks.
    let environment: [String: String]

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
            ended: { _, reason, saved in
                // Out of every save but the end's first, before anything waits.
                let ending = saves.desktopEnding(graphical)
                await logoutSignals.reset()
                await saves.desktopEnded(ending, reason: reason, savedAtEnding: saved)
            },
            variables: { variables in await logoutSignals.follow(variables) }
        )
    }

    /// Hands a desktop's variables to every graphical host: those
    /// restored's own environment does not already have (only they make a
    /// plugin host start again with them).
    func handOver(_ variables: [String: String]) {
        let new = variables.filter { environment[$0.key] != $0.value }
        for host in graphical { host.plugin.desktopEnvironment = new }
    }

    /// A desktop is there: its variables for every graphical host, and a
    /// restore with `trigger` for those whose archives waited for it (the
    /// session does not wait for it; each result is logged).
    func started(_ desktop: Desktop, trigger: ActivityTrigger) {
        // The save at the last desktop's end speaks for that desktop only.
        saves.forgetSessionEndSave()
        handOver(desktop.variables)
        // Queued first, walked by saves after: a save asked for meanwhile
        // still keeps the archive the restore reads.
        let waiting = saves.waitingForDesktop(graphical)
        _ = restores.start(waiting, trigger: trigger)
        saves.desktopStarted(waiting)
    }
}
