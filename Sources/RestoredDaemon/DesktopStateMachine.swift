import FoundationEssentials
import Logging

/// The decisions of ``DesktopSession`` as a value: the desktops of one
/// login, one after the other. Events in (what a source saw, with the facts
/// read at that moment: a look's finding, a socket's age, whether a display
/// still takes a connection), actions out (look, hold a display, restore,
/// save, log), and the time of each event passed in (``ContinuousClock``,
/// which counts a suspend). No I/O happens here: ``DesktopSession``
/// performs the actions and turns what they find into the next events.
///
/// A desktop ends in one place: after every event, ``endIfGone()`` ends
/// the desktop an event found gone (its display removed, restarted or no
/// longer taking a connection, `graphical-session.target` stopped, logind
/// saying no session of the user is left, the next desktop's display come
/// while this one ended), as logind's `session_check_gc` does after each
/// of its events.
struct DesktopStateMachine: Sendable {
    typealias Instant = ContinuousClock.Instant

    /// The desktop's phase, as `restored-ctl status` shows it.
    enum Phase: String, Sendable {
        /// No desktop: none yet in this login, or the last one ended.
        case none
        /// A desktop runs.
        case running
        /// The desktop said it ends; its apps were saved.
        case ending
    }

    /// The running (or ending) desktop and what restored does with it.
    struct Current: Sendable, Equatable {
        /// The desktop.
        var desktop: Desktop
        /// Whether its session manager or window manager is followed.
        var followed = false
        /// Whether restored holds a connection to its display.
        var held = false
        /// Why it is gone, once an event said so (ended after that event).
        var gone: String?
    }

    /// The display of a desktop that ended, while its server may run on:
    /// it is no new desktop until its socket is made again, or the target starts.
    struct EndedDisplay: Sendable, Equatable {
        /// The display.
        var display: String
        /// When its desktop ended.
        var at: Instant
    }

    /// Where the login is.
    enum State: Sendable, Equatable {
        /// No desktop runs; the last one's display, while it may run on.
        case none(ended: EndedDisplay?)
        /// A desktop runs.
        case running(Current)
        /// The desktop said it ends, at `since`; its apps were saved.
        case ending(Current, since: Instant)
    }

    /// What one look found, and the facts read with it.
    struct Look: Sendable, Equatable {
        /// The user manager's and restored's variables, the target, the display.
        var finding: GraphicalSession.Finding
        /// How long before the look the socket of the display found was
        /// made (its change time, a wall-clock time, turned into an age as
        /// it was read); nil when it cannot be told.
        var socketAge: Duration?
        /// Whether the ending desktop's display still takes a connection
        /// (read only while a desktop ends; nil otherwise).
        var endingDisplayReachable: Bool?
        /// The wall-clock time of the look, which a desktop found by it
        /// shows as its start.
        var time: Date
    }

    /// What a source saw, or what an action found.
    enum Event: Sendable, Equatable {
        /// restored started, with the desktop it found then (its apps were
        /// restored with the others), at `time` on the wall clock.
        case begin(GraphicalSession.Finding?, time: Date)
        /// Something may have started or changed a desktop: look
        /// (`settling`: and again over the next two minutes).
        case lookAsked(String, settling: Bool)
        /// The look of each minute where no display socket can be watched.
        case minuteLookAsked
        /// A look asked by ``Action/look(_:settling:)`` found this.
        case looked(String, Look, settling: Bool)
        /// A display's socket was made.
        case displayAppeared(String)
        /// A display's socket was removed.
        case displayRemoved(String)
        /// The connection held to the running desktop's display closed.
        case displayClosed(String)
        /// The hold of the running desktop's display could make no
        /// connection; whether the display takes one now.
        case holdFailed(displayReachable: Bool)
        /// `graphical-session.target` became active.
        case targetActive
        /// `graphical-session.target` stopped, by a signal; whether it is
        /// active when asked again (the word may be handled late).
        case targetStopped(activeNow: Bool)
        /// logind's state of the user (`active`, `online`, `lingering`, `closing`).
        case userState(String)
        /// The desktop says it ends (`source`, asked at `asked`): save
        /// within `budget`, answering within `answerWithin`.
        case ending(source: String, asked: Instant, budget: Duration, answerWithin: Duration?)
        /// The end was called off.
        case cancelled(String)
        /// ``Action/follow(_:)`` followed the desktop's session manager or
        /// window manager (true) or found none to follow yet.
        case followed(Bool)
    }

    /// What the daemon does, in order.
    enum Action: Sendable, Equatable {
        /// Look at the user manager and the displays now, and send ``Event/looked(_:_:settling:)``.
        case look(String, settling: Bool)
        /// Look again at ``DesktopStateMachine/settleDelays`` after now, replacing looks under way.
        case settle
        /// Stop the looks under way.
        case stopSettling
        /// Hold a connection to the desktop's display (its closing is ``Event/displayClosed(_:)``).
        case hold(Desktop)
        /// Release the connection held.
        case releaseHold
        /// A desktop started: restore the apps waiting for one, with `trigger`.
        case start(Desktop, ActivityTrigger)
        /// Follow what the desktop's variables name, and send ``Event/followed(_:)``.
        case follow([String: String])
        /// Save every app as at a logout, for the desktop's word of its end.
        case saveForEnding(source: String, asked: Instant, budget: Duration, answerWithin: Duration?)
        /// The end was called off (autosave resumes).
        case cancelled
        /// The desktop ended: save its apps unless `savedAtEnding`, and keep them until the next desktop.
        case ended(Desktop, reason: String, savedAtEnding: Bool)
        /// Say this in the log.
        case log(Logger.Level, String)
    }

    /// The looks after an event, in seconds after it.
    static let settleDelays: [Int] = [1, 2, 4, 8, 16, 32, 64]
    /// How long a desktop that said it ends may keep its display before
    /// restored takes it for running on (an end that never came).
    static let endingLimit = Duration.seconds(60)

    /// Where the login is now.
    private(set) var state = State.none(ended: nil)
    /// What restored's start was: a recovery's first desktop, found without
    /// an event and on a display whose socket is older than restored, is
    /// the one that ran before, live.
    private let startTrigger: ActivityTrigger
    /// When restored started.
    private let startedAt: Instant
    /// Whether a display or the target started, or logind's state of the
    /// user changed, since restored started: a desktop found after that is new.
    private var sawEvent = false
    /// Displays of a second desktop already logged while this one runs.
    private var otherDisplays: Set<String> = []
    /// Actions of the event being handled.
    private var actions: [Action] = []

    /// A login whose restored started at `startedAt`, for `startTrigger`.
    init(startTrigger: ActivityTrigger, startedAt: Instant) {
        self.startTrigger = startTrigger
        self.startedAt = startedAt
    }

    /// The phase.
    var phase: Phase {
        switch state {
        case .none: .none
        case .running: .running
        case .ending: .ending
        }
    }

    /// The running or ending desktop.
    var desktop: Desktop? { current?.desktop }

    private var current: Current? {
        switch state {
        case .none: nil
        case .running(let current), .ending(let current, _): current
        }
    }

    /// Handles `event`, which happened at `now`; what to do, in order.
    mutating func handle(_ event: Event, at now: Instant) -> [Action] {
        actions = []
        switch event {
        case .begin(let found, let time):
            if let found, found.isDesktop {
                enter(Desktop(variables: found.variables, display: found.display, boundToTarget: found.targetActive, since: time, startedBy: "there when restored started"), restoring: nil)
            }
        case .lookAsked(let why, let settling):
            actions.append(.look(why, settling: settling))
        case .minuteLookAsked:
            if isLooking { actions.append(.look("a look once a minute, as display sockets cannot be watched", settling: false)) }
        case .looked(let why, let look, let settling):
            looked(why, look, at: now)
            // Before what the look does: a follow done there stops it.
            if settling, isLooking, !actions.contains(.settle) { actions.insert(.settle, at: 0) }
        case .displayAppeared(let display):
            sawEvent = true
            if let desktop, Self.same(desktop.display, display) { markGone("its display \(display) was started again") }
            endIfGone(at: now)
            if case .none(let ended) = state, ended?.display == display { state = .none(ended: nil) }
            actions.append(.look("the display \(display) appeared", settling: true))
        case .displayRemoved(let display), .displayClosed(let display):
            if case .none(let ended) = state, ended?.display == display { state = .none(ended: nil) }
            if let desktop, Self.same(desktop.display, display) { markGone("its display \(display) went away") }
        case .holdFailed(let reachable):
            update { $0.held = false }
            if !reachable, let display = desktop?.display { markGone("its display \(display) went away") }
        case .targetActive:
            sawEvent = true
            if case .none = state { state = .none(ended: nil) }
            if case .running(var current) = state {
                current.desktop.boundToTarget = true
                state = .running(current)
            }
            actions.append(.look("graphical-session.target is active", settling: true))
        case .targetStopped(let activeNow):
            if desktop?.boundToTarget == true, !activeNow { markGone("graphical-session.target stopped") }
        case .userState(let userState):
            sawEvent = true
            if userState == "lingering", desktop != nil { markGone("no session of the user is left (logind: the user lingers)") }
        case .ending(let source, let asked, let budget, let answerWithin):
            if case .running(var current) = state {
                // An X server that resets when its last client leaves must
                // not wait for restored; the looks see it go. A compositor is held on.
                if current.held, current.desktop.display != current.desktop.variables["WAYLAND_DISPLAY"] {
                    actions.append(.releaseHold)
                    current.held = false
                }
                state = .ending(current, since: now)
                actions.append(.settle)
            }
            // No desktop runs: a late word of the one that just ended (the
            // save at its end answers it), or a logout before any desktop
            // was seen. Ending already: the word waits for the save under way.
            actions.append(.saveForEnding(source: source, asked: asked, budget: budget, answerWithin: answerWithin))
        case .cancelled(let source):
            guard case .ending(let current, _) = state else { break }
            actions.append(.log(.info, "the logout was cancelled (\(source))"))
            actions.append(.stopSettling)
            resume(current)
        case .followed(let followed):
            if followed, case .running(var current) = state {
                current.followed = true
                state = .running(current)
                actions.append(.stopSettling)
            }
        }
        endIfGone(at: now)
        return actions
    }

    /// Whether a look may find something new: a desktop, or the running
    /// one's session manager or window manager.
    private var isLooking: Bool {
        switch state {
        case .none: true
        case .running(let current): !current.followed
        case .ending: false
        }
    }

    private mutating func looked(_ why: String, _ look: Look, at now: Instant) {
        let found = look.finding
        switch state {
        case .none(let ended):
            guard found.isDesktop else { return }
            // The display of the desktop that ended is no new desktop until
            // its server starts again (its socket made anew, seen by its
            // event or by its age) or the target does.
            if let display = found.display, let ended, display == ended.display, !Self.made(look.socketAge, after: ended.at, now: now) { return }
            let new = sawEvent || (found.display != nil && Self.made(look.socketAge, after: startedAt, now: now))
            let trigger: ActivityTrigger = startTrigger == .recovery && !new ? .recovery : .login
            enter(Desktop(variables: found.variables, display: found.display, boundToTarget: found.targetActive, since: look.time, startedBy: why), restoring: trigger)
        case .running(var current):
            if let display = found.display, let running = current.desktop.display, display != running {
                // Another display in the manager's environment while this one runs:
                // a second desktop of the login (a second seat, a remote desktop).
                if otherDisplays.insert(display).inserted {
                    actions.append(.log(.notice, "the user manager names another display (\(display)) while the desktop on \(running) runs; restored follows \(running) until it ends, then the other as the next desktop"))
                }
                return
            }
            if found.variables != current.desktop.variables || (found.targetActive && !current.desktop.boundToTarget) {
                current.desktop.variables = found.variables
                current.desktop.boundToTarget = current.desktop.boundToTarget || found.targetActive
            }
            if !current.held, current.desktop.display != nil {
                actions.append(.hold(current.desktop))
                current.held = true
            }
            state = .running(current)
            if current.followed {
                actions.append(.stopSettling)
            } else {
                actions.append(.follow(found.variables))
            }
        case .ending(let current, let since):
            guard let running = current.desktop.display else { return }
            if let display = found.display, display != running {
                // A display of the next desktop while this one ends: this one is over.
                markGone("the next desktop's display \(display) came")
                endIfGone(at: now)
                looked(why, look, at: now)
            } else if look.endingDisplayReachable == false {
                markGone("its display \(running) went away")
            } else if since.duration(to: now) >= Self.endingLimit {
                // No end came: the desktop runs on (autosave resumes).
                actions.append(.log(.notice, "the desktop on \(current.desktop.description) said it ends, but its display still runs after \(Self.endingLimit); following it as running"))
                resume(current)
            }
        }
    }

    /// The ending desktop runs on: it is held again, and autosave resumes.
    private mutating func resume(_ ending: Current) {
        var current = ending
        actions.append(.cancelled)
        if !current.held, current.desktop.display != nil {
            actions.append(.hold(current.desktop))
            current.held = true
        }
        state = .running(current)
    }

    /// A desktop is there: hold its display, restore its apps (`trigger`),
    /// follow its session manager or window manager.
    private mutating func enter(_ desktop: Desktop, restoring trigger: ActivityTrigger?) {
        otherDisplays = []
        var current = Current(desktop: desktop)
        if desktop.display != nil {
            actions.append(.hold(desktop))
            current.held = true
        }
        state = .running(current)
        actions.append(.log(.info, "the desktop is there: \(desktop.description) (\(desktop.startedBy))"))
        if let trigger { actions.append(.start(desktop, trigger)) }
        // Looks go on until a session manager or window manager is followed.
        actions.append(.settle)
        actions.append(.follow(desktop.variables))
    }

    /// Notes that the running or ending desktop is gone (the first reason kept).
    private mutating func markGone(_ reason: String) {
        update { current in
            if current.gone == nil { current.gone = reason }
        }
    }

    private mutating func update(_ change: (inout Current) -> Void) {
        switch state {
        case .none: break
        case .running(var current):
            change(&current)
            state = .running(current)
        case .ending(var current, let since):
            change(&current)
            state = .ending(current, since: since)
        }
    }

    /// The one place a desktop ends: one an event found gone.
    private mutating func endIfGone(at now: Instant) {
        guard let current, let reason = current.gone else { return }
        let savedAtEnding = phase == .ending
        if current.held { actions.append(.releaseHold) }
        actions.append(.stopSettling)
        state = .none(ended: current.desktop.display.map { EndedDisplay(display: $0, at: now) })
        actions.append(.log(.info, "the desktop on \(current.desktop.description) ended: \(reason)"))
        actions.append(.ended(current.desktop, reason: reason, savedAtEnding: savedAtEnding))
    }

    /// Whether a socket `age` old at `now` was made after `instant`.
    static func made(_ age: Duration?, after instant: Instant, now: Instant) -> Bool {
        guard let age else { return false }
        return age < instant.duration(to: now)
    }

    /// Whether the display `name` a socket event gives (`wayland-1`, `:0`)
    /// is `display` as the variables name it (`WAYLAND_DISPLAY` may be a path).
    static func same(_ display: String?, _ name: String) -> Bool {
        guard let display else { return false }
        return display == name || display.hasSuffix("/" + name)
    }
}
