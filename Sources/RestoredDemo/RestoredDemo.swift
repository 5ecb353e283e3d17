import ArgumentParser
import Foundation
import Logging
import RestoredArchive
import RestoredEngine
import SystemPackage

/// `restored-demo`: preservation and restoration of the example apps, end to end.
@main
struct RestoredDemo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restored-demo",
        abstract: "Preserve and restore apps through their plugins, without a desktop session.",
        discussion: """
            Without a subcommand, plays the whole story with the example plugins in a \
            temporary directory: the notes app (Swift) and the counter app (C) are saved, \
            killed, and restored into fresh instances, and what came back is compared \
            with what was saved.
            """,
        subcommands: [Walkthrough.self, Save.self, Restore.self],
        defaultSubcommand: Walkthrough.self
    )
}

/// Options shared by `save` and `restore`.
struct WalkOptions: ParsableArguments {
    @Option(name: .customLong("state-dir"), help: "Where archives live (default: $XDG_STATE_HOME/restored).")
    var stateDirectory: String?

    @Option(name: .customLong("plugin-dir"), help: "A plugin directory; repeat for more (default: the standard search path).")
    var pluginDirectories: [String] = []

    @Option(name: .customLong("option"), help: ArgumentHelp("An app option, as APP-ID:KEY=VALUE; repeat for more.", valueName: "app:key=value"))
    var options: [String] = []

    @Argument(help: "The apps to walk (default: every loaded plugin).")
    var apps: [String] = []

    func appOptions() throws -> [AppID: [String: String]] {
        try AppOptions.parse(options)
    }

    func environment() -> (store: ArchiveStore, loader: PluginLoader) {
        let environment = ProcessInfo.processInfo.environment
        let directory = stateDirectory.map { FilePath($0) } ?? ArchiveStore.defaultDirectory(environment: environment)
        let plugins = pluginDirectories.isEmpty ? PluginLoader.searchPath(environment: environment) : pluginDirectories.map { FilePath($0) }
        return (ArchiveStore(directory: directory), PluginLoader(directories: plugins))
    }

    func sessions(logger: Logger) throws -> [InProcessPluginSession] {
        let (_, loader) = environment()
        let catalog = loader.load(logger: logger)
        let wanted = try Set(apps.map { try AppID($0) })
        for appID in wanted where catalog.plugin(for: appID) == nil {
            throw ValidationError("no plugin restores \(appID); loaded: \(catalog.plugins.map(\.appID.rawValue).joined(separator: ", "))")
        }
        let options = try appOptions()
        return try catalog.plugins.filter { wanted.isEmpty || wanted.contains($0.appID) }.map { plugin in
            try plugin.makeSession(options: options[plugin.appID] ?? [:], logger: logger)
        }
    }
}

/// `restored-demo save`: one preservation walk per app.
struct Save: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Save the state of apps into their archives.")

    @OptionGroup var walk: WalkOptions

    func run() throws {
        let logger = DemoLogging.logger()
        let engine = RestorationEngine(store: walk.environment().store, logger: logger)
        var failed = false
        for session in try walk.sessions(logger: logger) {
            let report = engine.preserve(session)
            print("\(report.appID): \(report.outcome)")
            if case .failed = report.outcome { failed = true }
        }
        if failed { throw ExitCode.failure }
    }
}

/// `restored-demo restore`: one restoration walk per app.
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Restore apps from their archives.")

    @OptionGroup var walk: WalkOptions

    @Flag(help: "Restore even after a restore that never finished (R15).")
    var force = false

    func run() throws {
        let logger = DemoLogging.logger()
        let engine = RestorationEngine(store: walk.environment().store, logger: logger)
        var failed = false
        for session in try walk.sessions(logger: logger) {
            let report = engine.restore(session, mode: force ? .forced : .automatic)
            print("\(report.appID): \(report.outcome)")
            switch report.outcome {
            case .failed, .unusableArchive: failed = true
            default: break
            }
        }
        if failed { throw ExitCode.failure }
    }
}

/// Logging to standard error, level from `RESTORED_LOG_LEVEL` (default notice).
enum DemoLogging {
    static func logger() -> Logger {
        var logger = Logger(label: "restored") { StreamLogHandler.standardError(label: $0) }
        let level = ProcessInfo.processInfo.environment["RESTORED_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:))
        logger.logLevel = level ?? .notice
        return logger
    }
}
