/// Work with a deadline that is reported, never waited for: the save before
/// suspend, at logout and at stop, and the login restore before READY.
enum Deadline {
    /// Runs `work` in its own task; returns true if it finished by `deadline`.
    /// Work still running at the deadline is left to finish on its own.
    static func race(deadline: ContinuousClock.Instant, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        // The first of the two results is taken; the stream drops the other.
        let (results, result) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingOldest(1))
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            result.yield(false)
        }
        Task {
            await work()
            result.yield(true)
            timer.cancel()
        }
        var iterator = results.makeAsyncIterator()
        return await iterator.next() ?? false
    }
}
