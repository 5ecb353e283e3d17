import ArgumentParser
import RestoredControl

/// `restored-ctl reload`.
struct ReloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Scan the plugin directories and read the options files again.",
        discussion: """
            New plugins get a plugin host, a rebuilt plugin (or one lifted out of quarantine by a new \
            build) a new one, removed plugins are dropped (their archives stay), and plugins whose \
            options changed get them before their next walk. Prints the apps added and removed; new \
            apps are not restored (restored-ctl restore APP).
            """
    )

    func run() async throws {
        let client = try await DaemonClient.connect()
        defer { client.close() }
        let result = try await client.reloadPlugins()
        for app in result.added { print("added \(app)") }
        for app in result.removed { print("removed \(app)") }
        if result.refused > 0 {
            print("\(result.refused) plugin file\(result.refused == 1 ? " is" : "s are") refused: restored-ctl plugins says why")
        }
    }
}
