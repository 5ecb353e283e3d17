import ArgumentParser

/// `--json`.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON (a stable shape, see docs/admin-api.md) instead of text.")
    var json = false
}
