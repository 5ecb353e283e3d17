import ArgumentParser
import RestoredArchive
import RestoredControl

/// `restored-ctl ignore-snapshot`.
struct IgnoreSnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ignore-snapshot",
        abstract: "Make the app's next restore skip its snapshot (R12), or with --clear show it again.",
        discussion: "The flag is set on the archive as it is now; the app's next save writes its own choice."
    )

    @Argument(help: "An app id, like org.example.Notes.")
    var app: String

    @Flag(help: "Clear the flag instead of setting it.")
    var clear = false

    @OptionGroup var state: StateOptions

    func run() async throws {
        let appID = try Console.parseAppIDs([app])[0]
        if state.stateDirectory == nil, let daemon = await DaemonClient.running() {
            defer { daemon.close() }
            return try await daemon.setIgnoreSnapshot(appID.rawValue, !clear)
        }
        let store = await state.store(daemon: nil)
        if state.stateDirectory == nil { Console.offline(store) }
        do throws(ArchiveStoreError) {
            _ = try store.update(appID) { $0.ignoresSnapshot = !clear }
        } catch {
            if case .noArchive = error { throw ControlError(.failure, "no archive for \(appID) (known apps: restored-ctl apps)") }
            throw ControlError(.failure, error.description)
        }
    }
}
