import Dispatch

/// Blocking work (a child's exit, a program run to its end, a plugin that
/// waits for its D-Bus replies on the thread that calls it) run on a
/// dispatch thread, never on one of the few cooperative threads that async
/// code shares: the one way restored's async code leaves the pool for it.
///
/// It is the opposite of the plugin toolkit's `Blocking`, which waits on a
/// plugin's own thread for async work.
public enum OffPool {
    /// Runs `work` on a dispatch thread and returns its result.
    public static func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }

    /// Runs `work`, which may throw `Failure`, on a dispatch thread.
    public static func run<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await run {
            do throws(Failure) {
                return .success(try work())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}
