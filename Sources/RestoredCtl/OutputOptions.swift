import ArgumentParser

/// `--json`.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON (a stable shape, see the README) instead of text.")
    var json = false
}
