import ArgumentParser
import RestoredControl

/// `restored-ctl plugins`.
struct PluginsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List the loaded, quarantined and refused plugins, with the reason and the way out for each."
    )

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let client = try await DaemonClient.connect()
        defer { client.close() }
        let plugins = try await client.plugins()
        if output.json { return try Console.json(plugins) }
        var table = TextTable(header: ["FILE", "APP", "ABI", "STATE"])
        for plugin in plugins {
            let status = plugin.state == "quarantined" ? "quarantined: \(plugin.reason ?? "")" : plugin.reason ?? plugin.state
            table.rows.append([plugin.file, plugin.app ?? "-", plugin.abiVersion.map(String.init) ?? "-", status])
        }
        Console.write(table.text(style: Console.style))
    }
}
