import Dispatch
import ProcessSpawning

/// Blocking work (a child's exit, a program run to its end, a sleep between
/// looks) done on a dispatch thread, never on one of the few cooperative
/// threads that async code shares.
enum Blocking {
    /// Runs `work` on a dispatch thread and returns its result.
    static func run<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }

    /// Runs `work`, which may throw `Failure`, on a dispatch thread.
    static func run<Value: Sendable, Failure: Error>(
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

    /// Runs `executable` with `arguments` (its name first) to its end.
    static func runProgram(_ executable: String, _ arguments: [String], environment: [String: String], timeout: Duration) async throws(PluginTestError) -> ProgramRun {
        do {
            return try await Blocking.run { () throws(ProgramRunError) -> ProgramRun in
                try ProgramRun.run(executable, arguments: arguments, environment: environment, timeout: timeout)
            }
        } catch {
            throw .cannotRun(command: arguments.joined(separator: " "), reason: error.description)
        }
    }
}
