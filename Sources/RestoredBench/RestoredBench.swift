import ArgumentParser

/// `restored-bench`: measurements of restored, reported as ratios against
/// baselines measured in the same run.
@main
struct RestoredBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restored-bench",
        abstract: "Benchmarks of restored. Build with -c release: swift run -c release restored-bench codec (or suspend, tmux, floors)",
        subcommands: [CodecBenchmark.self, MessagePackBenchmark.self, TilingBenchmark.self, GnomeShellBenchmark.self, KWinBenchmark.self, SuspendBenchmark.self, IdleBenchmark.self, TmuxBenchmark.self, AutosaveBenchmark.self, LogoutBenchmark.self, ScanBenchmark.self, FloorBenchmark.self]
    )
}
