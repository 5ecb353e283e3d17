import Foundation
import ProcessSpawning
import RestoredTestSupport
import Testing

/// `connect(to:within:)` against a bus that takes the connection and never
/// answers its Hello, in a process of its own: libdbus would wait its 25 s.
@Suite struct ConnectBudgetTests {
    @Test("A bus that never answers costs a connect its limit, not libdbus's 25 s: the error says so")
    func silentBus() throws {
        let directory = try TemporaryTestDirectory()
        let root = directory.path
        let listener = try UnixListener(path: root + "/bus")
        // Killed at 15 s, well before libdbus's own 25 s would end it.
        let run = try ProgramRun.run(
            BuildProducts.executable("restored-test-bus-connect"), arguments: ["restored-test-bus-connect", "unix:path=\(listener.path)", "500"],
            environment: [:], timeout: .seconds(15)
        )
        #expect(run.ending == .exited(3), "\(run.outputText) \(run.errorText)")
        #expect(run.outputText.contains("the bus did not answer within 0.5 seconds"), "\(run.outputText)")
    }
}
