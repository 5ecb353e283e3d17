import ArgumentParser
import RestoredControl

/// `restored-ctl status`.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show restored's state, lock, last save, apps and plugins; problems first."
    )

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let client = try await DaemonClient.connect()
        defer { client.close() }
        let status = try await client.status()
        if output.json { return try Console.json(status) }
        let style = Console.style
        var text = ""
        if !status.problems.isEmpty {
            text += style.bold(style.red("problems")) + "\n"
            for problem in status.problems { text += "  " + problem + "\n" }
        }
        let lock = status.lockHeld ? "held" : (status.logind ? "not held" : "no logind: nothing waits for saves at suspend or shutdown")
        let lastSave = status.lastSave.map { "\(Console.time($0.time)) (\($0.trigger)): \($0.saved) saved, \($0.failed) failed" } ?? "never"
        let desktop = status.desktop
        var desktopLine: String
        if let name = desktop.name {
            desktopLine = "\(name)\(desktop.phase == "ending" ? ", ending" : ""), since \(desktop.since.map(Console.time) ?? "?") (\(desktop.startedBy ?? "?"))"
        } else {
            desktopLine = "none"
        }
        if let ended = desktop.endedBy {
            desktopLine += "; the last one ended \(desktop.ended.map(Console.time) ?? "?"): \(ended)"
            if desktop.name == nil { desktopLine += " (its apps wait for the next desktop)" }
        }
        let rows: [(String, String)] = [
            ("state", "\(status.state)"),
            ("version", status.version),
            ("desktop", desktopLine),
            ("delay lock", lock),
            ("session manager", status.sessionManager ? "registered" : "none (logout is saved at SIGTERM)"),
            ("last save", lastSave),
            ("apps", "\(status.apps)"),
            ("plugins", "\(status.pluginsLoaded) loaded, \(status.pluginsRefused) refused"),
            ("state directory", status.stateDirectory),
        ]
        let width = rows.map(\.0.count).max() ?? 0
        for (key, value) in rows {
            text += (key + ":").padding(toLength: width + 2, withPad: " ", startingAt: 0) + value + "\n"
        }
        Console.write(text)
    }
}
