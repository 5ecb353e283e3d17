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
        let appIDs = try Console.appIDs(apps)
        let client = try await DaemonClient.connect()
        defer { client.close() }
        _ = try await client.save(appIDs.map(\.rawValue))
        try await Outcomes.check(client: client, apps: appIDs.map(\.rawValue), action: "save")
    }
}

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
        let appIDs = try Console.appIDs(apps)
        let client = try await DaemonClient.connect()
        defer { client.close() }
        _ = try await client.restore(appIDs.map(\.rawValue), force: force)
        try await Outcomes.check(client: client, apps: appIDs.map(\.rawValue), action: "restore")
    }
}

/// What the daemon says of the apps a save or restore just handled.
enum Outcomes {
    /// Throws one line naming every app whose `action` failed, for the
    /// named apps or (none named) every app with a plugin.
    static func check(client: DaemonClient, apps: [String], action: String) async throws(ControlError) {
        let records = try await client.apps().filter { record in
            apps.isEmpty ? record.plugin != nil : apps.contains(record.app)
        }
        var failures: [String] = []
        for record in records {
            guard let last = record.last, last.action == action else { continue }
            switch last.outcome {
            case "failed", "unusable-archive":
                failures.append("\(record.app) (\(last.outcome): \(last.detail))")
            case "skipped":
                failures.append("\(record.app) (skipped: \(last.detail.replacingOccurrences(of: "restore it with force to try again", with: "restored-ctl restore --force \(record.app)")))")
            case "no-archive" where !apps.isEmpty:
                failures.append("\(record.app) (no archive)")
            default:
                break
            }
        }
        guard failures.isEmpty else {
            throw ControlError(.failure, "not \(action == "save" ? "saved" : "restored"): \(failures.joined(separator: "; "))")
        }
    }
}
