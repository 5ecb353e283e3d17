import Synchronization

/// What must be undone when the run ends, however it ends (its last step,
/// a failure, Ctrl-C): each action registered as its resource is made,
/// run once, the last registered first.
final class Cleanup: Sendable {
    private let actions = Mutex<[@Sendable () -> Void]>([])

    /// A list with nothing to undo yet.
    init() {}

    /// Registers `action`.
    func add(_ action: @escaping @Sendable () -> Void) {
        actions.withLock { $0.append(action) }
    }

    /// Runs every action registered and not yet run, newest first; safe
    /// from any thread, and a second call finds nothing left to do.
    func run() {
        let pending = actions.withLock { value in defer { value = [] }; return value }
        for action in pending.reversed() { action() }
    }
}
