import ServiceLifecycle

/// A moment restored is quiet (no save or restore runs, the desktop is not
/// ending), waited for without a clock: each change that may end a busy
/// spell (a save or restore done, a save round ended, the desktop's phase
/// changed) nudges it, and the waiter looks again then. A change that
/// nudges nothing leaves the waiter waiting: every state `isQuiet` reads
/// must nudge when it changes. Only after an upgrade does anyone wait.
struct QuietMoment: Sendable {
    private let changes: AsyncStream<Void>
    private let change: AsyncStream<Void>.Continuation

    init() {
        // A nudge while nobody waits is kept (one is enough): the waiter
        // that comes after it looks at once.
        (changes, change) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Says something changed that may make restored quiet.
    func nudge() {
        change.yield()
    }

    /// Returns true once `isQuiet` holds, looked at now and at each nudge;
    /// false when graceful shutdown comes first. One waiter at a time.
    func wait(until isQuiet: @Sendable () -> Bool) async -> Bool {
        if isQuiet() { return true }
        for await _ in changes.cancelOnGracefulShutdown() where isQuiet() {
            return true
        }
        return false
    }
}
