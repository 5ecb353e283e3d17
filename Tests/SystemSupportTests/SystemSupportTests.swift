import SystemSupport
import Testing

/// The shared helpers of SystemSupport, on plain values.
@Suite struct SystemSupportTests {
    @Test("A duration as poll's timeout: rounded up to whole milliseconds, 0 when not positive, at most Int32.max")
    func pollMilliseconds() {
        #expect(Duration.zero.pollMilliseconds == 0)
        #expect(Duration.milliseconds(-5).pollMilliseconds == 0)
        #expect(Duration.nanoseconds(1).pollMilliseconds == 1)
        #expect(Duration.milliseconds(1).pollMilliseconds == 1)
        #expect((Duration.milliseconds(1) + .nanoseconds(1)).pollMilliseconds == 2)
        #expect(Duration.seconds(2.5).pollMilliseconds == 2500)
        #expect(Duration.seconds(Int64.max / 2).pollMilliseconds == .max)
    }

    @Test("A program's name is the last component of its path")
    func programNames() {
        #expect(ProgramName.of("/usr/bin/nvim") == "nvim")
        #expect(ProgramName.of("nvim") == "nvim")
        #expect(ProgramName.of("../bin/tmux/") == "tmux")
        #expect(ProgramName.of("") == "")
        #expect(ProgramName.of("/usr/bin/nvim"[...]) == "nvim")
    }

    @Test("Without PATH the fallback search path is used")
    func searchPath() {
        #expect(ExecutableSearchPath.of([:]) == "/usr/local/bin:/usr/bin:/bin")
        #expect(ExecutableSearchPath.of(["PATH": "/opt/bin"]) == "/opt/bin")
    }
}
