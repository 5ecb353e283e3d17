import ArgumentParser
import RestoredControl

/// `restored-ctl save`.
struct SaveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save",
        abstract: "Save apps now (all of them when none is named).",
        discussion: "Quiet when every app is saved (or declines, as its plugin may); otherwise names each failure and exits 1."
    )

    @Argument(help: "App ids, like org.example.Notes.")
    var apps: [String] = []

    func run() async throws {
        let appIDs = try Console.parseAppIDs(apps)
        let client = try await DaemonClient.connect()
        defer { client.close() }
        _ = try await client.save(appIDs.map(\.rawValue))
        try await ActionOutcomeCheck.check(client: client, apps: appIDs.map(\.rawValue), action: "save")
    }
}
