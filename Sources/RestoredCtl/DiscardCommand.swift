import ArgumentParser
import Foundation
import Glibc
import RestoredArchive
import RestoredControl

/// `restored-ctl discard`.
struct DiscardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discard",
        abstract: "Delete apps' archives (both generations); the apps start fresh next time.",
        discussion: """
            Asks for confirmation on a terminal unless --yes is given; without a terminal, --yes is \
            required. Works without restored running, on the archives directly.
            """
    )

    @Argument(help: "App ids, like org.example.Notes.")
    var apps: [String]

    @Flag(name: [.short, .long], help: "Do not ask for confirmation.")
    var yes = false

    @OptionGroup var state: StateOptions

    func validate() throws {
        guard !apps.isEmpty else { throw ValidationError("name at least one app to discard") }
    }

    func run() async throws {
        let appIDs = try Console.parseAppIDs(apps)
        if !yes {
            guard isatty(STDIN_FILENO) == 1 else {
                throw ControlError(.usage, "discard deletes archives for good: confirm with --yes when not on a terminal")
            }
            FileHandle.standardError.write(Data("Delete the archives of \(appIDs.map(\.rawValue).joined(separator: ", "))? [y/N] ".utf8))
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                throw ControlError(.failure, "nothing discarded")
            }
        }
        if state.stateDirectory == nil, let daemon = await DaemonClient.running() {
            defer { daemon.close() }
            for appID in appIDs { try await daemon.discard(appID.rawValue) }
            return
        }
        let store = await state.store(daemon: nil)
        if state.stateDirectory == nil { Console.offline(store) }
        for appID in appIDs {
            let removed: Bool
            do {
                removed = try store.discard(appID)
            } catch {
                throw ControlError(.failure, error.description)
            }
            guard removed else { throw ControlError(.failure, "no archive for \(appID) (known apps: restored-ctl apps)") }
        }
    }
}
