import FoundationEssentials
import Glibc
import Logging
import RestoredDBus
import Synchronization
import SystemSupport
import X11Client

/// The desktops of one login, one after the other: whether one is there,
/// which, since when, and what ended the last.
///
/// A login (the user manager and `$XDG_RUNTIME_DIR`) can outlive its
/// desktops: a user who lingers keeps the manager and restored across a
/// logout, a window manager started from a console leaves the console's
/// login running when it exits. So a desktop has phases of its own:
/// ``Phase/none`` (none yet, or the last one ended), ``Phase/running``, and
/// ``Phase/ending`` (the desktop said it ends, the apps were saved, the
/// display is still there).
///
/// It follows events, and a clock only where it must (below). Every source sends a ``Signal`` into
/// one stream, handled in order (``run()``):
/// - the user manager (``UserManagerWatch``): `graphical-session.target`
///   going active or stopping, a job done;
/// - the displays (``DisplaySocketWatch``): an X server's or a compositor's
///   socket made or removed;
/// - the display itself (``DisplayHold``): the connection restored holds to
///   the running desktop's display closes when the display goes;
/// - logind (``LogindUserWatch``): the user's state, `lingering` once no
///   session of the user is left;
/// - what the desktop says of its end (``LogoutSignalFollower``, the
///   session manager's EndSession): ``Signal/ending(source:budget:answerWithin:answered:)``,
///   and ``Signal/cancelled(_:)`` when the user called the logout off.
///
/// What a signal means is decided here, and acted on through ``Actions``:
/// a desktop that starts is a login for the apps that need one (their
/// restore, reason `session`); a desktop that ends is a session end for
/// them (saved as at a logout, their archives kept until the next desktop).
///
/// The one wait on a clock: the user manager signals nothing when a desktop
/// exports its variables to it (`SetEnvironment`, measured on systemd 252:
/// no signal of any kind), and a desktop's display socket is made before
/// its variables are exported. So after an event that may announce a
/// desktop (its display socket made, restored's start with a display up, a
/// target of the manager started), it looks again at 1, 2, 4 ... 64 s after
/// that event (``settleDelays``, about two minutes); after a desktop starts
/// it does the same until the desktop's session manager or window manager
/// is followed (their address or socket is often exported after the
/// display); while a desktop ends, the same looks see its display go when
/// no socket event says so. Each look is three calls to the user manager
/// and a connect. With nothing happening, nothing runs; except where no
/// display socket can be watched (inotify used up): then
/// ``Signal/lookOnceAMinute`` looks while no desktop runs, or one runs
/// whose session manager or window manager is not followed.
actor DesktopSession {
    /// The desktop's phase.
    enum Phase: String, Sendable {
        /// No desktop: none yet in this login, or the last one ended.
        case none
        /// A desktop runs.
        case running
        /// The desktop said it ends; its apps were saved.
        case ending
    }

    /// What a source saw.
    enum Signal: Sendable {
        /// Something that may start or change a desktop: look now
        /// (`settling`: and again over the next two minutes).
        case look(String, settling: Bool)
        /// The look of each minute where no display socket can be watched:
        /// made only while a look could find something new.
        case lookOnceAMinute
        /// A display's socket was made.
        case displayAppeared(String)
        /// A display's socket was removed.
        case displayRemoved(String)
        /// The connection held to the running desktop's display closed.
        case displayClosed(String)
        /// The hold (its identity) of the running desktop's display could
        /// make no connection.
        case displayHoldFailed(ObjectIdentifier)
        /// `graphical-session.target` is active (true) or not.
        case target(active: Bool)
        /// logind's state of the user changed (`active`, `online`, `lingering`, `closing`).
        case userState(String)
        /// The desktop says it ends (asked at `asked`): save within
        /// `budget`, and call `answered` within `answerWithin` (or once saved).
        case ending(source: String, asked: ContinuousClock.Instant, budget: Duration, answerWithin: Duration?, answered: @Sendable () -> Void)
        /// The end was called off.
        case cancelled(String)
    }

    /// What the daemon does at each moment.
    struct Actions: Sendable {
        /// A desktop started: give the apps of the desktop its variables and
        /// restore those whose archives wait for it, with `trigger`.
        var started: @Sendable (Desktop, ActivityTrigger) async -> Void
        /// The desktop said it ends (`source`, at `asked`): save every app
        /// as at a logout within `budget`, returning within `answerWithin`;
        /// a second word waits for the save under way.
        var ending: @Sendable (_ source: String, _ asked: ContinuousClock.Instant, _ budget: Duration, _ answerWithin: Duration?) async -> Void
        /// The end was called off.
        var cancelled: @Sendable () -> Void
        /// The desktop ended (`reason`): save the apps unless `savedAtEnding`,
        /// and keep the desktop's apps until the next desktop.
        var ended: @Sendable (_ desktop: Desktop, _ reason: String, _ savedAtEnding: Bool) async -> Void
        /// The running desktop's variables, looked at: follow what they
        /// name; true once its session manager or window manager is followed.
        var variables: @Sendable ([String: String]) async -> Bool
    }

    /// How the last desktop ended.
    struct End: Sendable, Hashable {
        /// What ended it.
        var reason: String
        /// When.
        var time: Date
    }

    /// What `restored-ctl status` shows.
    struct Report: Sendable, Hashable {
        /// The phase.
        var phase: Phase
        /// The running (or ending) desktop.
        var desktop: Desktop?
        /// How the last desktop ended, if one did.
        var lastEnd: End?
    }

    /// The looks after an event, in seconds after it.
    static let settleDelays: [Int] = [1, 2, 4, 8, 16, 32, 64]

    private let probe: GraphicalSession
    /// Set by ``begin(with:actions:)``.
    private var actions = Actions(
        started: { _, _ in }, ending: { _, _, _, _ in }, cancelled: {}, ended: { _, _, _ in }, variables: { _ in false }
    )
    private let logger: Logger
    /// What restored's start was: a recovery's first desktop, found
    /// without an event and on a display whose socket is older than
    /// restored, is the one that ran before, live.
    private let startTrigger: ActivityTrigger
    private let signals: AsyncStream<Signal>
    private let input: AsyncStream<Signal>.Continuation
    private let published = Mutex(Report(phase: .none))

    private var phase = Phase.none
    private var desktop: Desktop?
    private var hold: DisplayHold?
    private var settle: Task<Void, Never>?
    /// Whether a display or the target started, or logind's state of the
    /// user changed, since restored started: a desktop found after that is new.
    private var sawEvent = false
    /// When restored started, on the clock file times are on: a display
    /// whose socket is younger came after it (even before its watch began).
    private let started = Date()
    /// The display of the desktop that ended, while its server runs on:
    /// it is no new desktop until its socket is made again or the target starts.
    private var endedDisplay: String?
    /// When the desktop on ``endedDisplay`` ended.
    private var endedTime = Date.distantPast
    /// Whether the running desktop's session manager or window manager is followed.
    private var channelFollowed = false
    /// When the running desktop said it ends.
    private var endingSince: ContinuousClock.Instant?
    /// How long a desktop that said it ends may keep its display before
    /// restored takes it for running on (an end that never came).
    static let endingLimit = Duration.seconds(60)
    /// Displays of a second desktop already logged.
    private var otherDisplays: Set<String> = []

    init(probe: GraphicalSession, startTrigger: ActivityTrigger, logger: Logger) {
        self.probe = probe
        self.startTrigger = startTrigger
        self.logger = logger
        (signals, input) = AsyncStream<Signal>.makeStream()
    }

    /// The phase and the desktop, for `Status`.
    nonisolated var report: Report { published.withLock { $0 } }

    /// Hands a source's signal over; it is handled in order by ``run()``.
    nonisolated func send(_ signal: Signal) {
        input.yield(signal)
    }

    /// Says the desktop ends (`source`) and returns once the save it starts
    /// has answered (`answerWithin` from now, or when done within
    /// `budget`), or at once when the session no longer runs.
    nonisolated func ending(source: String, budget: Duration, answerWithin: Duration?) async {
        let asked = ContinuousClock.now
        // Answered once handled; a signal dropped unhandled (the session's
        // task cancelled) is answered when its budget is over.
        let (answer, answering) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingOldest(1))
        let signal = Signal.ending(source: source, asked: asked, budget: budget, answerWithin: answerWithin) {
            answering.yield()
            answering.finish()
        }
        if case .terminated = input.yield(signal) { return }
        _ = await answer.first(within: budget + .seconds(1)) { $0 }
    }

    /// Takes the desktop found at restored's start (its apps were restored
    /// with the other apps), or none, and what to do at each moment from now on.
    func begin(with found: GraphicalSession.Finding?, actions: Actions) async {
        self.actions = actions
        guard let found, found.isDesktop else {
            publish()
            return
        }
        let desktop = Desktop(variables: found.variables, display: found.display, boundToTarget: found.targetActive, since: Date(), startedBy: "there when restored started")
        await enter(desktop)
    }

    /// Handles the signals until the stream ends (``finish()``).
    func run() async {
        for await signal in signals {
            await handle(signal)
        }
        settle?.cancel()
        hold?.release()
    }

    /// Ends ``run()`` after the signals already sent.
    nonisolated func finish() {
        input.finish()
    }

    private func handle(_ signal: Signal) async {
        switch signal {
        case .look(let why, let settling):
            await look(why)
            if settling { settleIfLooking() }
        case .lookOnceAMinute:
            if phase == .none || (phase == .running && !channelFollowed) {
                await look("a look once a minute, as display sockets cannot be watched")
            }
        case .displayAppeared(let display):
            sawEvent = true
            if phase != .none, Self.same(desktop?.display, display) {
                // The socket made again: the server before is gone.
                await end("its display \(display) was started again")
            }
            if display == endedDisplay { endedDisplay = nil }
            await look("the display \(display) appeared")
            settleIfLooking()
        case .displayRemoved(let display), .displayClosed(let display):
            if display == endedDisplay { endedDisplay = nil }
            guard phase != .none, Self.same(desktop?.display, display) else { return }
            await end("its display \(display) went away")
        case .displayHoldFailed(let identity):
            // Held again at the next look; a display that takes no
            // connection now is gone (no socket event may come to say so).
            guard let hold, ObjectIdentifier(hold) == identity, let desktop, let display = desktop.display else { return }
            self.hold = nil
            if GraphicalSession.reachableDisplay(desktop.variables, runtimeDirectory: probe.runtimeDirectory) == nil {
                await end("its display \(display) went away")
            }
        case .target(let active):
            if active {
                sawEvent = true
                endedDisplay = nil
                if phase == .running, var desktop {
                    desktop.boundToTarget = true
                    self.desktop = desktop
                }
                await look("graphical-session.target is active")
                settleIfLooking()
            } else if phase != .none, desktop?.boundToTarget == true, !(await probe.targetIsActive()) {
                // Asked again: the word may be handled late, after the
                // target started again.
                await end("graphical-session.target stopped")
            }
        case .userState(let state):
            sawEvent = true
            if state == "lingering", phase != .none {
                await end("no session of the user is left (logind: the user lingers)")
            }
        case .ending(let source, let asked, let budget, let answerWithin, let answered):
            await ending(source, asked: asked, budget: budget, answerWithin: answerWithin)
            answered()
        case .cancelled(let source):
            guard phase == .ending else { return }
            logger.info("the logout was cancelled (\(source))")
            phase = desktop == nil ? .none : .running
            settle?.cancel()
            actions.cancelled()
            if let desktop, hold == nil { hold(desktop) }
            publish()
        }
    }

    /// The desktop says it ends: the first word saves, the others wait for
    /// that save (within their own time).
    private func ending(_ source: String, asked: ContinuousClock.Instant, budget: Duration, answerWithin: Duration?) async {
        switch phase {
        case .ending:
            await actions.ending(source, asked, budget, answerWithin)
            return
        case .none:
            // No desktop runs: a late word of the one that just ended (the
            // save at its end answers it), or a logout before any desktop was seen.
            await actions.ending(source, asked, budget, answerWithin)
            return
        case .running:
            break
        }
        phase = .ending
        endingSince = .now
        // An X server that resets when its last client leaves must not wait
        // for restored; the looks below see it go. A compositor is held on.
        if let desktop, desktop.display != nil, desktop.display != desktop.variables["WAYLAND_DISPLAY"] {
            hold?.release()
            hold = nil
        }
        settleAgain()
        publish()
        await actions.ending(source, asked, budget, answerWithin)
    }

    private func look(_ why: String) async {
        let found = await probe.look()
        switch phase {
        case .none:
            guard found.isDesktop else { return }
            // The display of the desktop that ended is no new desktop until
            // its server starts again (its socket made anew, seen by its
            // event or, without inotify, by its time) or the target does.
            if let display = found.display, display == endedDisplay,
               !Self.socketMade(of: display, runtimeDirectory: probe.runtimeDirectory, after: endedTime) { return }
            let new = sawEvent || found.display.map { Self.socketMade(of: $0, runtimeDirectory: probe.runtimeDirectory, after: started) } == true
            let trigger: ActivityTrigger = startTrigger == .recovery && !new ? .recovery : .login
            let desktop = Desktop(variables: found.variables, display: found.display, boundToTarget: found.targetActive, since: Date(), startedBy: why)
            await enter(desktop, restoring: trigger)
        case .running:
            guard var desktop else { return }
            if let display = found.display, let current = desktop.display, display != current {
                // Another display in the manager's environment while this one runs:
                // a second desktop of the login (a second seat, a remote desktop).
                if otherDisplays.insert(display).inserted {
                    logger.notice("the user manager names another display (\(display)) while the desktop on \(current) runs; restored follows \(current) until it ends, then the other as the next desktop")
                }
                return
            }
            if found.variables != desktop.variables || (found.targetActive && !desktop.boundToTarget) {
                desktop.variables = found.variables
                desktop.boundToTarget = desktop.boundToTarget || found.targetActive
                self.desktop = desktop
                publish()
            }
            if hold == nil { hold(desktop) }
            if !channelFollowed { channelFollowed = await actions.variables(found.variables) }
            if channelFollowed { settle?.cancel() }
        case .ending:
            guard let desktop, let current = desktop.display else { return }
            if let display = found.display, display != current {
                // A display of the next desktop while this one ends: this one is over.
                await end("the next desktop's display \(display) came")
                await look(why)
            } else if GraphicalSession.reachableDisplay(desktop.variables, runtimeDirectory: probe.runtimeDirectory) == nil {
                await end("its display \(current) went away")
            } else if let since = endingSince, since.duration(to: .now) >= Self.endingLimit {
                // No end came: the desktop runs on (autosave resumes).
                logger.notice("the desktop on \(desktop.description) said it ends, but its display still runs after \(Self.endingLimit); following it as running")
                phase = .running
                actions.cancelled()
                if hold == nil { hold(desktop) }
                publish()
            }
        }
    }

    /// A desktop is there: hold its display, tell the daemon.
    private func enter(_ desktop: Desktop, restoring trigger: ActivityTrigger? = nil) async {
        self.desktop = desktop
        phase = .running
        channelFollowed = false
        otherDisplays = []
        hold(desktop)
        publish()
        logger.info("the desktop is there: \(desktop.description) (\(desktop.startedBy))")
        if let trigger { await actions.started(desktop, trigger) }
        channelFollowed = await actions.variables(desktop.variables)
        if !channelFollowed { settleAgain() }
    }

    private func hold(_ desktop: Desktop) {
        hold?.release()
        hold = nil
        guard let display = desktop.display else { return }
        // restored's own variables under the desktop's: HOME finds ~/.Xauthority.
        let variables = probe.environment.merging(desktop.variables) { _, desktop in desktop }
        let held = DisplayHold(display: display, variables: variables, runtimeDirectory: probe.runtimeDirectory)
        let identity = ObjectIdentifier(held)
        held.watch(closed: { [input] in input.yield(.displayClosed(display)) }, failed: { [input] in input.yield(.displayHoldFailed(identity)) })
        hold = held
    }

    /// The desktop ended: its apps are saved (unless its ending saved them)
    /// and wait for the next one.
    private func end(_ reason: String) async {
        guard let ended = desktop else {
            phase = .none
            publish()
            return
        }
        let savedAtEnding = phase == .ending
        hold?.release()
        hold = nil
        settle?.cancel()
        desktop = nil
        phase = .none
        endedDisplay = ended.display
        endedTime = Date()
        published.withLock { $0.lastEnd = End(reason: reason, time: Date()) }
        publish()
        logger.info("the desktop on \(ended.description) ended: \(reason)")
        await actions.ended(ended, reason, savedAtEnding)
    }

    /// Whether the socket of `display` (`:0` in `/tmp/.X11-unix`, a Wayland
    /// name in `runtimeDirectory`, or a path) was made after `date`.
    static func socketMade(of display: String, runtimeDirectory: String?, after date: Date) -> Bool {
        let path: String
        if let x11 = X11Display(display) {
            path = x11.socketPath
        } else if display.hasPrefix("/") {
            path = display
        } else if let runtimeDirectory {
            path = runtimeDirectory + "/" + display
        } else {
            return false
        }
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let made = Date(timeIntervalSince1970: Double(status.st_ctim.tv_sec) + Double(status.st_ctim.tv_nsec) / 1e9)
        return made > date
    }

    /// Whether the display `name` a socket event gives (`wayland-1`, `:0`)
    /// is `display` as the variables name it (`WAYLAND_DISPLAY` may be a path).
    static func same(_ display: String?, _ name: String) -> Bool {
        guard let display else { return false }
        return display == name || display.hasSuffix("/" + name)
    }

    /// Settles after an event while there is something to look for: a
    /// desktop, or the running one's session manager or window manager.
    private func settleIfLooking() {
        if phase == .none || (phase == .running && !channelFollowed) { settleAgain() }
    }

    /// Looks again at ``settleDelays`` after now, replacing a settle under way.
    private func settleAgain() {
        settle?.cancel()
        settle = Task { [input] in
            var waited = 0
            for delay in Self.settleDelays {
                guard (try? await Task.sleep(for: .seconds(delay - waited))) != nil else { return }
                waited = delay
                input.yield(.look("settle", settling: false))
            }
        }
    }

    private func publish() {
        published.withLock { report in
            report.phase = phase
            report.desktop = desktop
        }
    }
}
