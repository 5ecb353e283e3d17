import Synchronization

/// Work with a deadline that is reported, never waited for: the save before
/// suspend, at logout and at stop, and the login restore before READY.
enum Deadline {
    /// Runs `work` in its own task; returns true if it finished by `deadline`.
    /// Work still running at the deadline is left to finish on its own.
    static func race(deadline: ContinuousClock.Instant, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        await withCheckedContinuation { continuation in
            let outcome = RaceOutcome(continuation)
            let timer = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                outcome.finish(false)
            }
            Task {
                await work()
                outcome.finish(true)
                // The timer's task ends now; its dispatch timer still fires
                // once at the deadline, finding nothing to do.
                timer.cancel()
            }
        }
    }
}

/// Resumes a race's waiter once, with the first result.
private final class RaceOutcome: Sendable {
    private let continuation: Mutex<CheckedContinuation<Bool, Never>?>

    init(_ continuation: CheckedContinuation<Bool, Never>) {
        self.continuation = Mutex(continuation)
    }

    func finish(_ value: Bool) {
        let waiting = continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        waiting?.resume(returning: value)
    }
}
