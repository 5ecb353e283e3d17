public import FoundationEssentials
import Synchronization
import SystemSupport

/// What the daemon is doing and has done, for the admin API's `Status`.
public final class DaemonState: Sendable {
    /// The daemon's phase.
    public enum Phase: String, Sendable {
        /// Loading plugins and joining the buses.
        case starting
        /// Restoring apps at login.
        case restoring
        /// Idle between saves.
        case running
        /// Saving apps (suspend, shutdown, logout, autosave, a request).
        case saving
        /// Saving before it exits.
        case stopping
    }

    /// One save of every app.
    public struct SaveRound: Hashable, Sendable {
        /// What caused it.
        public var trigger: ActivityTrigger
        /// When it finished (a round cut off by a deadline is recorded when
        /// its last app is done).
        public var time: Date
        /// Apps saved.
        public var saved: Int
        /// Apps that failed.
        public var failed: Int
    }

    private struct Values {
        var phase = Phase.starting
        var activeSaves = 0
        var lastSave: SaveRound?
        var logindReachable = false
        var sessionManagerRegistered = false
        var restartsForUpgrade = false
        var changed: (@Sendable () -> Void)?
    }

    private let values = Mutex(Values())

    /// Creates the state of a starting daemon.
    public init() {}

    /// The phase: ``Phase/saving`` while a save round runs in the
    /// ``Phase/running`` phase.
    public var phase: Phase {
        get { values.withLock { $0.phase == .running && $0.activeSaves > 0 ? .saving : $0.phase } }
        set { values.withLock { $0.phase = newValue }; notify() }
    }

    /// A save round starts; rounds may overlap.
    public func beginSave() { values.withLock { $0.activeSaves += 1 } }

    /// A save round ends.
    public func endSave() {
        values.withLock { $0.activeSaves -= 1 }
        notify()
    }

    /// Calls `handler` after each change of ``phase`` (a save round's end included).
    public func onPhaseChange(_ handler: @escaping @Sendable () -> Void) {
        values.withLock { $0.changed = handler }
    }

    private func notify() {
        values.withLock { $0.changed }?()
    }

    /// The last save of every app, if any.
    public var lastSave: SaveRound? {
        get { values.withLock { $0.lastSave } }
        set { values.withLock { $0.lastSave = newValue } }
    }

    /// Whether logind answered on the system bus at start.
    public var logindReachable: Bool {
        get { values.withLock { $0.logindReachable } }
        set { values.withLock { $0.logindReachable = newValue } }
    }

    /// Whether restored is registered with the session manager.
    public var sessionManagerRegistered: Bool {
        get { values.withLock { $0.sessionManagerRegistered } }
        set { values.withLock { $0.sessionManagerRegistered = newValue } }
    }

    /// Whether restored stops to restart into the version an upgrade installed.
    public var restartsForUpgrade: Bool {
        get { values.withLock { $0.restartsForUpgrade } }
        set { values.withLock { $0.restartsForUpgrade = newValue } }
    }

    /// Gives the memory a round freed back to the system once restored is
    /// idle between saves (``HeapRelease``); not once it stops.
    public func releaseFreedMemorySoon() {
        HeapRelease.soon { [self] in
            switch phase {
            case .running: .quiet
            case .stopping: .never
            case .starting, .restoring, .saving: .busy
            }
        }
    }
}
