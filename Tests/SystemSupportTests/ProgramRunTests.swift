import Foundation
import ProcessSpawning
import Testing

/// Running a short command to its end and keeping its output.
@Suite struct ProgramRunTests {
    @Test("Output, errors and the exit status come back; only /dev/null and the two pipes are inherited")
    func capture() throws {
        let run = try ProgramRun.run(
            "/bin/sh", arguments: ["sh", "-c", "echo out; echo err >&2; ls /proc/self/fd | sort -n | tr '\\n' ' '; exit 3"],
            environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(30)
        )
        #expect(run.ending == .exited(3))
        // 0, 1, 2, and the descriptor ls reads its directory with.
        #expect(run.outputText == "out\n0 1 2 3 ")
        #expect(run.errorText == "err")
    }

    @Test("A command that does not end in time is killed, and the error says so")
    func timeout() throws {
        let marker = "7.\(UInt32.random(in: 100_000...999_999))"
        #expect {
            _ = try ProgramRun.run("/bin/sleep", arguments: ["sleep", marker], environment: [:], timeout: .milliseconds(200))
        } throws: { error in
            (error as? ProgramRunError) == .timedOut(command: "sleep \(marker)", after: .milliseconds(200))
        }
        let left = try ProgramRun.run("/usr/bin/pgrep", arguments: ["pgrep", "-f", "sleep \(marker)"], environment: [:], timeout: .seconds(30))
        #expect(left.ending == .exited(1))
    }

    @Test("A program that cannot be executed is an error naming it")
    func missing() {
        #expect(throws: ProgramRunError.cannotSpawn(program: "/nonexistent/program", .noSuchFileOrDirectory)) {
            _ = try ProgramRun.run("/nonexistent/program", arguments: ["program"], environment: [:], timeout: .seconds(1))
        }
    }

    @Test("A program that exits while a daemon it started keeps its output open is done at its exit, not at the timeout")
    func daemonKeepsOutput() throws {
        let marker = "9.\(UInt32.random(in: 100_000...999_999))"
        let run = try ProgramRun.run("/bin/sh", arguments: ["sh", "-c", "sleep \(marker) & echo started"], environment: ["PATH": "/usr/bin:/bin"], timeout: .seconds(60))
        #expect(run.ending == .exited(0))
        #expect(run.outputText == "started\n")
        _ = try ProgramRun.run("/usr/bin/pkill", arguments: ["pkill", "-f", "sleep \(marker)"], environment: [:], timeout: .seconds(30))
    }

    @Test("With no time left, nothing is started")
    func noTimeLeft() {
        let marker = "/tmp/restored-never-\(UInt32.random(in: 100_000...999_999))"
        #expect(throws: ProgramRunError.timedOut(command: "touch \(marker)", after: .zero)) {
            _ = try ProgramRun.run("/usr/bin/touch", arguments: ["touch", marker], environment: [:], timeout: .zero)
        }
        #expect(!FileManager.default.fileExists(atPath: marker))
    }
}
