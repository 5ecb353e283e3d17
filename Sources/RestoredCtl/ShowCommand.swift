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

/// `restored-ctl dump`.
struct DumpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Print an app's whole decoded archive as JSON."
    )

    @Argument(help: "An app id, like org.example.Notes.")
    var app: String

    @OptionGroup var state: StateOptions

    func run() async throws {
        let inspection = try await ArchiveReader.inspection(of: app, state: state)
        try Console.json(inspection.dump)
    }
}

/// Reads one archive for `show` and `dump`, from restored's state directory.
enum ArchiveReader {
    static func inspection(of app: String, state: StateOptions) async throws(ControlError) -> ArchiveInspection {
        let appID = try Console.appIDs([app])[0]
        let daemon = state.stateDirectory == nil ? await DaemonClient.running() : nil
        defer { daemon?.close() }
        let store = try await state.store(daemon: daemon)
        if state.stateDirectory == nil && daemon == nil { Console.offline(store) }
        return try ArchiveInspection(appID: appID, store: store)
    }
}
