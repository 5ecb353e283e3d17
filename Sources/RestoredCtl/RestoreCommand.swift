import ArgumentParser
import RestoredControl

/// `restored-ctl restore`.
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore apps now from their archives (all of them when none is named).",
        discussion: """
            An app whose last restore started and never finished is skipped (R15: no crash loops); \
            --force restores it anyway. Quiet on success; otherwise names each failure and exits 1.
            """
    )

    @Argument(help: "App ids, like org.example.Notes.")
    var apps: [String] = []

    @Flag(help: "Restore even an app whose last restore never finished (overrides R15's skip).")
    var force = false

    func run() async throws {
        let appIDs = try Console.parseAppIDs(apps)
        let client = try await DaemonClient.connect()
        defer { client.close() }
        _ = try await client.restore(appIDs.map(\.rawValue), force: force)
        try await ActionOutcomeCheck.check(client: client, apps: appIDs.map(\.rawValue), action: "restore")
    }
}
