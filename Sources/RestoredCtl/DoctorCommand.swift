import ArgumentParser
import RestoredControl
import SystemPackage

/// `restored-ctl doctor`.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check what restored needs, explaining each problem with a remedy.",
        discussion: """
            Checks the session bus, restored, logind and restored's delay lock, the session \
            manager, restored's GNOME Shell extension where GNOME Shell runs (installed, enabled, \
            the command that enables it), restored's KWin script where KWin runs, the state directory's ownership and permissions, the plugin directories and \
            whether each plugin loads. The plugin directories are those given with --plugin-dir, \
            or the running restored's (its plugins as it holds them), or restored's default search \
            path. Exits 1 when a check fails (a refused plugin is one); warnings do not.
            """
    )

    @OptionGroup var output: OutputOptions

    @Option(name: .customLong("state-dir"), help: "Check this state directory instead of restored's.", completion: .directory)
    var stateDirectory: String?

    @Option(name: .customLong("plugin-dir"), help: "Check the plugins of this directory (repeatable) instead of restored's.", completion: .directory)
    var pluginDirectories: [String] = []

    func run() async throws {
        let checks = await Doctor(
            environment: Console.environment, stateDirectory: stateDirectory.map { FilePath($0) },
            pluginDirectories: pluginDirectories.isEmpty ? nil : pluginDirectories.map { FilePath($0) }
        ).run()
        if output.json {
            try Console.json(checks)
        } else {
            let style = Console.style
            Console.write(checks.map { $0.text(style: style) }.joined(separator: "\n") + "\n")
        }
        let failed = checks.filter { $0.result == .failed }.count
        if failed > 0 {
            throw ControlError(.failure, "\(failed) check\(failed == 1 ? "" : "s") failed")
        }
    }
}
