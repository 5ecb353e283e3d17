import Dispatch
import Synchronization
import SystemSupport

/// Runs async work from a plugin callback, which the plugin host calls on
/// its own thread (never a task's): the thread waits for the work.
public enum Blocking {
    /// Runs `work` in a task and waits for its result on this thread, at
    /// most until `deadline`: nil when it has not finished by then (the task
    /// is cancelled, and its late result dropped).
    public static func run<Value: Sendable, Failure: Error>(
        until deadline: ContinuousClock.Instant, _ work: @escaping @Sendable () async throws(Failure) -> Value
    ) throws(Failure) -> Value? {
        let result = Mutex<Result<Value, Failure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let task = Task {
            let outcome: Result<Value, Failure>
            do throws(Failure) {
                outcome = .success(try await work())
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        let left = ContinuousClock.now.duration(to: deadline).pollMilliseconds
        guard done.wait(timeout: .now() + .milliseconds(Int(left))) == .success else {
            task.cancel()
            return nil
        }
        return try result.withLock { $0! }.get()
    }
}
