import Dispatch
import Synchronization

/// Runs async work from a plugin callback, which the plugin host calls on
/// its own thread (never a task's): the thread waits for the work.
public enum Blocking {
    /// Runs `work` in a task and waits for its result on this thread.
    public static func run<Value: Sendable, Failure: Error>(_ work: @escaping @Sendable () async throws(Failure) -> Value) throws(Failure) -> Value {
        let result = Mutex<Result<Value, Failure>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<Value, Failure>
            do throws(Failure) {
                outcome = .success(try await work())
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0! }.get()
    }
}
