import ArgumentParser
import RestoredControl

/// `restored-ctl restore`.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore apps now from their archives (all of them when none is named).",
        discussion: """
            An app whose last restore started and never finished is skipped (R15: no crash loops); \
            --force restores it anyway. Quiet on success; otherwise names each failure and exits 1. \
            Objects a restore could not restore are named on standard error, each with why. \
            --last-complete restores one app from the last complete archive that restored keeps \
            while its newer saves are partial (they left objects out).
            """
    )

    @Argument(help: "App ids, like org.example.Notes.")
    var apps: [String] = []

    @Flag(help: "Restore even an app whose last restore never finished (overrides R15's skip).")
    var force = false

    @Flag(help: "Restore the one app named from its last complete archive, not its newer partial saves.")
    var lastComplete = false

    func validate() throws {
        if lastComplete && apps.count != 1 {
            throw ValidationError("--last-complete restores exactly one app; name it")
        }
    }

    func run() async throws {
        let appIDs = try Console.parseAppIDs(apps)
        let client = try await DaemonClient.connect()
        defer { client.close() }
        if lastComplete {
            _ = try await client.restoreLastComplete(appIDs[0].rawValue)
            return try await ActionOutcomeCheck.check(client: client, apps: [appIDs[0].rawValue], action: "restore")
        }
        _ = try await client.restore(appIDs.map(\.rawValue), force: force)
        try await ActionOutcomeCheck.check(client: client, apps: appIDs.map(\.rawValue), action: "restore")
    }
}
