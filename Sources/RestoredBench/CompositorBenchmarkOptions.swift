import ArgumentParser

/// The options the window benchmarks (gnome-shell, tiling, kwin) share.
struct CompositorBenchmarkOptions: ParsableArguments {
    @Option(help: "Rounds; the median is reported.")
    var rounds = 3
    @Option(name: .customLong("plugin-dir"), help: "Where libSessionPlugin.so is (default: beside this program).")
    var pluginDirectory: String?
    @Option(
        name: .customLong("system-root"),
        help: "Run the compositor of this root of another release (its /proc, /dev and /tmp mounted; as root: scripts/bench-releases makes one)."
    )
    var systemRoot: String?
}
