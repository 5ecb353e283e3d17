import ArgumentParser
import RestoredControl

/// `restored-ctl dump`.
struct DumpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print an app's whole decoded archive as JSON."
    )

    @Argument(help: "An app id, like org.example.Notes.")
    var app: String

    @Flag(help: "Accepted for symmetry with the other commands: dump always prints JSON.")
    var json = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        let inspection = try await ArchiveReader.inspection(of: app, state: state)
        try Console.json(inspection.dump)
    }
}
