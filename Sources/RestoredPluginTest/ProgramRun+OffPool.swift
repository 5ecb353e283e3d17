import ProcessSpawning
import SystemSupport

extension ProgramRun {
    /// Runs `executable` with `arguments` (its name first) to its end, off
    /// the cooperative pool (``OffPool``).
    static func runOffPool(_ executable: String, _ arguments: [String], environment: [String: String], timeout: Duration) async throws(PluginTestError) -> ProgramRun {
        do {
            return try await OffPool.run { () throws(ProgramRunError) -> ProgramRun in
                try ProgramRun.run(executable, arguments: arguments, environment: environment, timeout: timeout)
            }
        } catch {
            throw .cannotRun(command: arguments.joined(separator: " "), reason: error.description)
        }
    }
}
