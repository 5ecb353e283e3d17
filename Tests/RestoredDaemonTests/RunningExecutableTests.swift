import Foundation
import Glibc
@testable import RestoredDaemon
import RestoredTestSupport
import Testing

/// restored's own executable, as an upgrade replaces it while it runs.
@Suite struct RunningExecutableTests {
    @Test("A running program's executable is its path and file; once a new file is renamed over it (as dpkg does), the kernel's `PATH (deleted)` still gives the path, and the file there is a replacement")
    func replacedWhileRunning() async throws {
        let root = try TemporaryTestDirectory()
        let program = root.path + "/program"
        // Copied by cp, not this process: a child another test forks
        // meanwhile would inherit a file held open for writing here, and
        // its exec would fail with ETXTBSY.
        #expect(try await CompletedCommand.run("/bin/cp", ["/bin/sleep", program], environment: ProcessInfo.processInfo.environment, in: URL(fileURLWithPath: root.path)).status == 0)
        let running = try ChildProcess(program, ["1000"], log: root.path + "/program.log")
        defer { running.stop() }
        let link = "/proc/\(running.pid)/exe"
        try await LogindInhibitorTests.eventually { (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == program }

        let before = try #require(RunningExecutable(link: link))
        #expect(before.path == program)
        #expect(!before.isReplaced)

        #expect(try await CompletedCommand.run("/bin/cp", ["/bin/sleep", program + ".new"], environment: ProcessInfo.processInfo.environment, in: URL(fileURLWithPath: root.path)).status == 0)
        #expect(rename(program + ".new", program) == 0)
        #expect(before.isReplaced)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == program + " (deleted)")
        // Read after the replacement (a restored that starts late): the
        // path without the kernel's mark, and the new file there.
        let after = try #require(RunningExecutable(link: link))
        #expect(after.path == program)
        #expect(after.isReplaced)
        #expect(RunningExecutable(link: root.path + "/none") == nil)
    }
}
