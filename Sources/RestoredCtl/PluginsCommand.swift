import ArgumentParser
import RestoredControl

/// `restored-ctl plugins`.
struct PluginsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List the loaded and refused plugins, with the reason for each refusal."
    )

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let client = try await DaemonClient.connect()
        defer { client.close() }
        let plugins = try await client.plugins()
        if output.json { return try Console.json(plugins) }
        var table = TextTable(header: ["FILE", "APP", "ABI", "STATE"])
        for plugin in plugins {
            table.rows.append([plugin.file, plugin.app ?? "-", plugin.abiVersion.map(String.init) ?? "-", plugin.reason ?? plugin.state])
        }
        Console.write(table.text(style: Console.style))
    }
}
