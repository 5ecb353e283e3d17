import ArgumentParser
import RestoredArchive
import RestoredControl

/// `restored-ctl show`.
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show an app's archive as a tree: paths, classes, keys with type and size, snapshot, flags, metadata."
    )

    @Argument(help: "An app id, like org.example.Notes.")
    var app: String

    @OptionGroup var output: OutputOptions
    @OptionGroup var state: StateOptions

    func run() async throws {
        let inspection = try await ArchiveReader.inspection(of: app, state: state)
        if output.json { return try Console.json(ArchiveOutline(inspection)) }
        Console.write(inspection.tree(timeFormat: Console.time))
    }
}
