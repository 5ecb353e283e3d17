import FoundationEssentials
import Testing

@testable import RestoredDaemon

/// The desktop's decisions without a desktop: each transition of
/// ``DesktopStateMachine``, events in and actions out, on a clock the test
/// moves (milliseconds each). The end-to-end desktop tests (TilingSessionTests,
/// DaemonIntegrationTests) run the same decisions on real displays.
struct DesktopStateMachineTests {
    typealias Machine = DesktopStateMachine
    let start = ContinuousClock.now
    let wall = Date(timeIntervalSince1970: 1_800_000_000)

    /// A finding of the display `display` (an X display when it starts with `:`).
    func finding(_ display: String?, target: Bool = false, extra: [String: String] = [:]) -> GraphicalSession.Finding {
        var variables = extra
        if let display { variables[display.hasPrefix(":") ? "DISPLAY" : "WAYLAND_DISPLAY"] = display }
        return GraphicalSession.Finding(variables: variables, targetActive: target, display: display)
    }

    func look(_ display: String?, age: Duration? = .seconds(3600), reachable: Bool? = nil, target: Bool = false) -> Machine.Look {
        Machine.Look(finding: finding(display, target: target), socketAge: age, endingDisplayReachable: reachable, time: wall)
    }

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int64(seconds * 1000)) }

    /// A machine with the desktop on `display` running since restored's start, followed or not.
    func running(_ display: String, followed: Bool = true, trigger: ActivityTrigger = .login) -> Machine {
        var machine = Machine(startTrigger: trigger, startedAt: start)
        _ = machine.handle(.begin(finding(display), time: wall), at: at(0))
        if followed { _ = machine.handle(.followed(true), at: at(0)) }
        return machine
    }

    func ends(_ actions: [Machine.Action]) -> [(reason: String, saved: Bool)] {
        actions.compactMap { if case .ended(_, let reason, let saved) = $0 { (reason, saved) } else { nil } }
    }

    func starts(_ actions: [Machine.Action]) -> [ActivityTrigger] {
        actions.compactMap { if case .start(_, let trigger) = $0 { trigger } else { nil } }
    }

    @Test("A desktop there at restored's start is held and followed, and not restored again (its apps were restored with the others)")
    func desktopAtStart() {
        var machine = Machine(startTrigger: .login, startedAt: start)
        let actions = machine.handle(.begin(finding("wayland-1"), time: wall), at: at(0))
        #expect(machine.phase == .running)
        #expect(machine.desktop?.since == wall)
        #expect(starts(actions).isEmpty)
        #expect(actions.contains(.hold(machine.desktop!)))
        #expect(actions.contains(.follow(["WAYLAND_DISPLAY": "wayland-1"])))
        // Looks go on until the desktop's session manager or window manager is followed.
        #expect(actions.firstIndex(of: .settle)! < actions.firstIndex(of: .follow(["WAYLAND_DISPLAY": "wayland-1"]))!)
        #expect(machine.handle(.followed(true), at: at(0.1)) == [.stopSettling])
        #expect(machine.handle(.minuteLookAsked, at: at(60)).isEmpty)
    }

    @Test("No desktop at start: a look asked finds none and settles; a display that appears is looked at, and found it is a login's desktop, restored")
    func desktopAppears() {
        var machine = Machine(startTrigger: .login, startedAt: start)
        #expect(machine.handle(.begin(nil, time: wall), at: at(0)).isEmpty)
        #expect(machine.handle(.lookAsked("restored started", settling: true), at: at(0)) == [.look("restored started", settling: true)])
        #expect(machine.handle(.looked("restored started", look(nil), settling: true), at: at(0.1)) == [.settle])
        #expect(machine.handle(.displayAppeared("wayland-1"), at: at(5)) == [.look("the display wayland-1 appeared", settling: true)])
        let actions = machine.handle(.looked("the display wayland-1 appeared", look("wayland-1", age: .milliseconds(10)), settling: true), at: at(5.1))
        #expect(machine.phase == .running)
        #expect(starts(actions) == [.login])
        #expect(machine.desktop?.startedBy == "the display wayland-1 appeared")
    }

    @Test("After a recovery (restored restarted within a login), the desktop found without an event on a socket older than restored is the one that ran before: restored as a recovery; one whose socket is younger, or after an event, as a login")
    func recoveryOrLogin() {
        var old = Machine(startTrigger: .recovery, startedAt: start)
        _ = old.handle(.begin(nil, time: wall), at: at(0))
        #expect(starts(old.handle(.looked("restored started", look(":0", age: .seconds(600)), settling: true), at: at(2))) == [.recovery])

        var young = Machine(startTrigger: .recovery, startedAt: start)
        _ = young.handle(.begin(nil, time: wall), at: at(0))
        #expect(starts(young.handle(.looked("settle", look(":0", age: .seconds(1)), settling: false), at: at(2))) == [.login])

        var unknownAge = Machine(startTrigger: .recovery, startedAt: start)
        _ = unknownAge.handle(.begin(nil, time: wall), at: at(0))
        _ = unknownAge.handle(.userState("active"), at: at(1))
        #expect(starts(unknownAge.handle(.looked("settle", look(":0", age: nil), settling: false), at: at(2))) == [.login])
    }

    @Test("A display's socket removed, or the connection held to it closed, ends its desktop once: its apps saved, the hold released, the looks stopped")
    func displayGoes() {
        var machine = running("wayland-1")
        let actions = machine.handle(.displayRemoved("wayland-1"), at: at(10))
        #expect(machine.phase == .none)
        #expect(ends(actions).map(\.reason) == ["its display wayland-1 went away"])
        #expect(ends(actions).map(\.saved) == [false])
        #expect(actions.prefix(2) == [.releaseHold, .stopSettling])
        // The hold's own word after that changes nothing.
        #expect(machine.handle(.displayClosed("wayland-1"), at: at(10.1)).isEmpty)
        // Another display's socket is not this desktop's.
        var other = running("wayland-1")
        #expect(other.handle(.displayRemoved("wayland-2"), at: at(10)).isEmpty)
        #expect(other.phase == .running)
        // WAYLAND_DISPLAY as a path is the socket of that name.
        var path = running("/run/user/1000/wayland-1")
        #expect(ends(path.handle(.displayClosed("wayland-1"), at: at(10))).count == 1)
    }

    @Test("A hold that fails ends the desktop only when its display takes no connection; one that does is held again at the next look")
    func holdFails() {
        var reachable = running(":1")
        #expect(reachable.handle(.holdFailed(displayReachable: true), at: at(3)).isEmpty)
        let again = reachable.handle(.looked("settle", look(":1"), settling: false), at: at(4))
        #expect(again.contains(.hold(reachable.desktop!)))
        var gone = running(":1")
        #expect(ends(gone.handle(.holdFailed(displayReachable: false), at: at(3))).map(\.reason) == ["its display :1 went away"])
    }

    @Test("graphical-session.target stopping ends a desktop bound to it, unless it is active again when asked; a desktop not bound to it runs on")
    func targetStops() {
        var bound = Machine(startTrigger: .login, startedAt: start)
        _ = bound.handle(.begin(finding("wayland-1", target: true), time: wall), at: at(0))
        #expect(bound.handle(.targetStopped(activeNow: true), at: at(5)).isEmpty)
        #expect(ends(bound.handle(.targetStopped(activeNow: false), at: at(6))).map(\.reason) == ["graphical-session.target stopped"])
        var unbound = running(":0")
        #expect(unbound.handle(.targetStopped(activeNow: false), at: at(5)).isEmpty)
        // The target started while it runs binds it.
        _ = unbound.handle(.targetActive, at: at(6))
        #expect(ends(unbound.handle(.targetStopped(activeNow: false), at: at(7))).count == 1)
    }

    @Test("logind saying the user lingers (no session left) ends the desktop; other states do not")
    func userLingers() {
        var machine = running(":0")
        #expect(machine.handle(.userState("closing"), at: at(1)).isEmpty)
        #expect(ends(machine.handle(.userState("lingering"), at: at(2))).map(\.reason) == ["no session of the user is left (logind: the user lingers)"])
    }

    @Test("The desktop's word of its end saves at once and releases an X display (a compositor stays held); a second word waits for that save; its display going then ends it as saved")
    func endingThenGone() {
        var x11 = running(":0")
        let first = x11.handle(.ending(source: "XSMP", asked: at(1), budget: .seconds(5), answerWithin: .seconds(1)), at: at(1))
        #expect(x11.phase == .ending)
        #expect(first == [.releaseHold, .settle, .saveForEnding(source: "XSMP", asked: at(1), budget: .seconds(5), answerWithin: .seconds(1))])
        #expect(x11.handle(.ending(source: "SIGTERM", asked: at(2), budget: .seconds(5), answerWithin: nil), at: at(2))
            == [.saveForEnding(source: "SIGTERM", asked: at(2), budget: .seconds(5), answerWithin: nil)])
        let gone = x11.handle(.looked("settle", look(":0", reachable: false), settling: false), at: at(3))
        #expect(ends(gone).map(\.saved) == [true])
        #expect(!gone.contains(.releaseHold))

        var wayland = running("wayland-0")
        #expect(!wayland.handle(.ending(source: "portal", asked: at(1), budget: .seconds(5), answerWithin: nil), at: at(1)).contains(.releaseHold))
        #expect(wayland.handle(.displayRemoved("wayland-0"), at: at(2)).contains(.releaseHold))
    }

    @Test("A logout called off, or an end that did not come within a minute, leaves the desktop running and held again; autosave resumes")
    func endingCalledOff() {
        var cancelled = running(":0")
        _ = cancelled.handle(.ending(source: "XSMP", asked: at(1), budget: .seconds(5), answerWithin: nil), at: at(1))
        let back = cancelled.handle(.cancelled("XSMP"), at: at(3))
        #expect(cancelled.phase == .running)
        #expect(back == [.log(.info, "the logout was cancelled (XSMP)"), .stopSettling, .cancelled, .hold(cancelled.desktop!)])
        // A word of cancel while running changes nothing.
        #expect(cancelled.handle(.cancelled("XSMP"), at: at(4)).isEmpty)

        var overdue = running(":0")
        _ = overdue.handle(.ending(source: "XSMP", asked: at(1), budget: .seconds(5), answerWithin: nil), at: at(1))
        #expect(overdue.handle(.looked("settle", look(":0", reachable: true), settling: false), at: at(32)).isEmpty)
        let resumed = overdue.handle(.looked("settle", look(":0", reachable: true), settling: false), at: at(65))
        #expect(overdue.phase == .running)
        #expect(resumed.contains(.cancelled) && resumed.contains(.hold(overdue.desktop!)))
    }

    @Test("The next desktop's display found while one ends ends it (saved at its word) and starts the next as a login's")
    func nextDesktopWhileEnding() {
        var machine = running(":0")
        _ = machine.handle(.ending(source: "XSMP", asked: at(1), budget: .seconds(5), answerWithin: nil), at: at(1))
        let actions = machine.handle(.looked("settle", look(":1", age: .seconds(1), reachable: true), settling: false), at: at(8))
        #expect(ends(actions).map(\.reason) == ["the next desktop's display :1 came"])
        #expect(ends(actions).map(\.saved) == [true])
        #expect(starts(actions) == [.login])
        #expect(machine.desktop?.display == ":1")
        // The end comes before the start.
        #expect(actions.firstIndex { if case .ended = $0 { true } else { false } }! < actions.firstIndex { if case .start = $0 { true } else { false } }!)
    }

    @Test("The display of a desktop that ended is no new desktop while its server runs on; once its socket is made again (by its age, or its event) or the target starts, it is")
    func endedDisplayRunsOn() {
        var machine = running(":0")
        _ = machine.handle(.userState("lingering"), at: at(10))
        // Still named, its socket as old as before the end: not a desktop.
        #expect(starts(machine.handle(.looked("settle", look(":0", age: .seconds(100)), settling: false), at: at(11))).isEmpty)
        #expect(machine.phase == .none)
        // Its socket made after the end.
        #expect(starts(machine.handle(.looked("settle", look(":0", age: .milliseconds(500)), settling: false), at: at(12))) == [.login])

        var byEvent = running(":0")
        _ = byEvent.handle(.userState("lingering"), at: at(10))
        _ = byEvent.handle(.displayAppeared(":0"), at: at(20))
        #expect(starts(byEvent.handle(.looked("the display :0 appeared", look(":0", age: nil), settling: true), at: at(20.1))) == [.login])

        var byTarget = running(":0")
        _ = byTarget.handle(.userState("lingering"), at: at(10))
        _ = byTarget.handle(.targetActive, at: at(20))
        #expect(starts(byTarget.handle(.looked("graphical-session.target is active", look(":0", age: nil), settling: true), at: at(20.1))) == [.login])
    }

    @Test("A display's socket made again while its desktop runs (the server restarted) ends that desktop and looks for the new one")
    func displayRestarted() {
        var machine = running(":0")
        let actions = machine.handle(.displayAppeared(":0"), at: at(30))
        #expect(ends(actions).map(\.reason) == ["its display :0 was started again"])
        #expect(actions.last == .look("the display :0 appeared", settling: true))
        #expect(starts(machine.handle(.looked("the display :0 appeared", look(":0", age: .milliseconds(5)), settling: true), at: at(30.1))) == [.login])
    }

    @Test("While a desktop runs: a second display named by the user manager is said once and not followed; new variables replace the desktop's; an unfollowed desktop is followed at the next look")
    func runningLooks() {
        var machine = running(":0", followed: false)
        let other = machine.handle(.looked("settle", look(":5"), settling: false), at: at(2))
        #expect(other.count == 1)
        #expect(machine.handle(.looked("settle", look(":5"), settling: false), at: at(3)).isEmpty)
        var changed = look(":0")
        changed.finding.variables["SWAYSOCK"] = "/run/sway.sock"
        let actions = machine.handle(.looked("settle", changed, settling: false), at: at(4))
        #expect(machine.desktop?.windowManager == "sway")
        #expect(actions == [.follow(changed.finding.variables)])
        #expect(machine.handle(.followed(false), at: at(4)).isEmpty)
        #expect(machine.handle(.minuteLookAsked, at: at(60)) == [.look("a look once a minute, as display sockets cannot be watched", settling: false)])
    }

    @Test("A logout word with no desktop running (late, or before any was seen) still saves, and changes nothing else")
    func endingWithoutDesktop() {
        var machine = Machine(startTrigger: .login, startedAt: start)
        _ = machine.handle(.begin(nil, time: wall), at: at(0))
        #expect(machine.handle(.ending(source: "SIGTERM", asked: at(1), budget: .seconds(5), answerWithin: nil), at: at(1))
            == [.saveForEnding(source: "SIGTERM", asked: at(1), budget: .seconds(5), answerWithin: nil)])
        #expect(machine.phase == .none)
    }
}
