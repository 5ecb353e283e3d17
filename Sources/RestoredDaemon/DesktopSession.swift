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
/// What a signal means is decided by ``DesktopStateMachine`` (a value,
/// unit-tested without a desktop); this actor turns each signal into the
/// machine's event with the facts read at that moment (a look, a socket's
/// age, whether a display takes a connection) and performs the machine's
/// actions in order, through ``Actions``:
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
    typealias Phase = DesktopStateMachine.Phase

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

    private let probe: GraphicalSession
    /// Set by ``begin(with:actions:)``.
    private var actions = Actions(
        started: { _, _ in }, ending: { _, _, _, _ in }, cancelled: {}, ended: { _, _, _ in }, variables: { _ in false }
    )
    private let logger: Logger
    private let signals: AsyncStream<Signal>
    private let input: AsyncStream<Signal>.Continuation
    private let published = Mutex(Report(phase: .none))
    /// The decisions.
    private var machine: DesktopStateMachine
    /// The connection held to the running desktop's display.
    private var hold: DisplayHold?
    /// The looks after an event (``DesktopStateMachine/settleDelays``).
    private var settle: Task<Void, Never>?

    /// Called when the phase changes.
    private let phaseChanged: @Sendable () -> Void

    init(probe: GraphicalSession, startTrigger: ActivityTrigger, logger: Logger, phaseChanged: @escaping @Sendable () -> Void = {}) {
        self.probe = probe
        self.logger = logger
        self.phaseChanged = phaseChanged
        machine = DesktopStateMachine(startTrigger: startTrigger, startedAt: .now)
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
        await apply(.begin(found, time: Date()))
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

    /// A source's signal as the machine's event, with the facts it needs read now.
    private func handle(_ signal: Signal) async {
        switch signal {
        case .look(let why, let settling):
            await apply(.lookAsked(why, settling: settling))
        case .lookOnceAMinute:
            await apply(.minuteLookAsked)
        case .displayAppeared(let display):
            await apply(.displayAppeared(display))
        case .displayRemoved(let display):
            await apply(.displayRemoved(display))
        case .displayClosed(let display):
            await apply(.displayClosed(display))
        case .displayHoldFailed(let identity):
            // Only the hold of now: an older one's failure says nothing.
            guard let hold, ObjectIdentifier(hold) == identity, let desktop = machine.desktop else { return }
            self.hold = nil
            let reachable = GraphicalSession.reachableDisplay(desktop.variables, runtimeDirectory: probe.runtimeDirectory) != nil
            await apply(.holdFailed(displayReachable: reachable))
        case .target(let active):
            if active {
                await apply(.targetActive)
            } else if machine.desktop?.boundToTarget == true {
                // Asked again: the word may be handled late, after the target started again.
                await apply(.targetStopped(activeNow: await probe.targetIsActive()))
            }
        case .userState(let state):
            await apply(.userState(state))
        case .ending(let source, let asked, let budget, let answerWithin, let answered):
            await apply(.ending(source: source, asked: asked, budget: budget, answerWithin: answerWithin))
            answered()
        case .cancelled(let source):
            await apply(.cancelled(source))
        }
    }

    /// Hands `event` to the machine and performs what it decides, in order.
    private func apply(_ event: DesktopStateMachine.Event) async {
        let decided = machine.handle(event, at: .now)
        publish()
        for action in decided {
            await perform(action)
        }
    }

    private func perform(_ action: DesktopStateMachine.Action) async {
        switch action {
        case .look(let why, let settling):
            await apply(.looked(why, await look(), settling: settling))
        case .settle:
            settleAgain()
        case .stopSettling:
            settle?.cancel()
            settle = nil
        case .hold(let desktop):
            hold(desktop)
        case .releaseHold:
            hold?.release()
            hold = nil
        case .start(let desktop, let trigger):
            await actions.started(desktop, trigger)
        case .follow(let variables):
            await apply(.followed(await actions.variables(variables)))
        case .saveForEnding(let source, let asked, let budget, let answerWithin):
            await actions.ending(source, asked, budget, answerWithin)
        case .cancelled:
            actions.cancelled()
        case .ended(let desktop, let reason, let savedAtEnding):
            published.withLock { $0.lastEnd = End(reason: reason, time: Date()) }
            await actions.ended(desktop, reason, savedAtEnding)
        case .log(let level, let message):
            logger.log(level: level, "\(message)")
        }
    }

    /// One look, with the facts the machine weighs it by: the age of the
    /// socket of the display found, and while a desktop ends whether its
    /// display still takes a connection.
    private func look() async -> DesktopStateMachine.Look {
        let found = await probe.look()
        let age = found.display.flatMap { Self.socketAge(of: $0, runtimeDirectory: probe.runtimeDirectory) }
        var reachable: Bool?
        if machine.phase == .ending, let desktop = machine.desktop {
            reachable = GraphicalSession.reachableDisplay(desktop.variables, runtimeDirectory: probe.runtimeDirectory) != nil
        }
        return DesktopStateMachine.Look(finding: found, socketAge: age, endingDisplayReachable: reachable, time: Date())
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

    /// How long ago the socket of `display` (`:0` in `/tmp/.X11-unix`, a
    /// Wayland name in `runtimeDirectory`, or a path) was made: its change
    /// time (wall clock) turned into an age now; nil when it cannot be read.
    static func socketAge(of display: String, runtimeDirectory: String?) -> Duration? {
        let path: String
        if let x11 = X11Display(display) {
            path = x11.socketPath
        } else if display.hasPrefix("/") {
            path = display
        } else if let runtimeDirectory {
            path = runtimeDirectory + "/" + display
        } else {
            return nil
        }
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let nanoseconds = (Int64(now.tv_sec) - Int64(status.st_ctim.tv_sec)) * 1_000_000_000 + (Int64(now.tv_nsec) - Int64(status.st_ctim.tv_nsec))
        return .nanoseconds(max(0, nanoseconds))
    }

    /// Looks again at ``DesktopStateMachine/settleDelays`` after now, replacing a settle under way.
    private func settleAgain() {
        settle?.cancel()
        settle = Task { [input] in
            var waited = 0
            for delay in DesktopStateMachine.settleDelays {
                guard (try? await Task.sleep(for: .seconds(delay - waited))) != nil else { return }
                waited = delay
                input.yield(.look("settle", settling: false))
            }
        }
    }

    private func publish() {
        let changed = published.withLock { report in
            let changed = report.phase != machine.phase
            report.phase = machine.phase
            report.desktop = machine.desktop
            return changed
        }
        if changed { phaseChanged() }
    }
}
