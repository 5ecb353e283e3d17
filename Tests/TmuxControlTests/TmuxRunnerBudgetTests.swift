import Foundation
import ProcessSpawning
import RestoredTestSupport
import SystemPackage
import TmuxControl
import Testing

/// A step's budget bounds each of its tmux calls, against a server that
/// takes the connection and never answers.
@Suite struct TmuxRunnerBudgetTests {
    @Test("A runner bounded by a deadline gives up on a silent server by that deadline, not by its own timeout; a deadline already past fails at once")
    func silentServer() throws {
        let directory = try TemporaryTestDirectory()
        let root = directory.path
        let listener = try UnixListener(path: root + "/silent")
        let runner = try #require(TmuxRunner(socket: FilePath(listener.path), environment: ProcessInfo.processInfo.environment, timeout: .seconds(60)))
        let bounded = runner.bounded(by: .now + .milliseconds(300))
        #expect(bounded.timeout <= .milliseconds(300))
        #expect {
            _ = try bounded.run(["list-sessions"])
        } throws: { error in
            guard case .cannotRun(_, .timedOut(_, let after))? = error as? TmuxError else { return false }
            return after <= .milliseconds(300)
        }
        #expect {
            _ = try runner.bounded(by: .now - .seconds(1)).run(["list-sessions"])
        } throws: { error in
            guard case .cannotRun(_, .timedOut(_, let after))? = error as? TmuxError else { return false }
            return after == .zero
        }
        // Unbounded, the runner keeps its own timeout.
        #expect(runner.bounded(by: .now + .seconds(3600)).timeout == .seconds(60))
    }
}
