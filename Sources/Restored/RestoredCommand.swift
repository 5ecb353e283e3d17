import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import RestoredArchive
import RestoredDaemon
import RestoredEngine
import RestoredPluginHosting
import RestoredSystemd
import SystemPackage

/// `restored`: the daemon, a systemd user service.
@main
struct RestoredCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restored",
        abstract: "Save your apps' state before suspend, shutdown and logout; restore it at login.",
        discussion: """
            Runs in the foreground and logs to the journal (or stderr). Owns org.restored1 on \
            the session bus; takes logind's delay lock on the system bus when logind is there. \
            SIGTERM or SIGINT saves every app, then exits. Environment: XDG_STATE_HOME (archives \
            in $XDG_STATE_HOME/restored), RESTORED_PLUGIN_PATH, DBUS_SESSION_BUS_ADDRESS, \
            DBUS_SYSTEM_BUS_ADDRESS, NOTIFY_SOCKET, WATCHDOG_USEC.
            """,
        version: RestoredVersion.string
    )

    @Option(name: .customLong("plugin-dir"), help: "A plugin directory; repeat for more (default: the standard search path).")
    var pluginDirectories: [String] = []

    @Option(name: .customLong("state-dir"), help: "Where archives live (default: $XDG_STATE_HOME/restored).")
    var stateDirectory: String?

    @Option(name: .customLong("option"), help: ArgumentHelp("An app option, as APP-ID:KEY=VALUE; repeat for more.", valueName: "app:key=value"))
    var options: [String] = []

    @Option(name: .customLong("autosave-interval"), help: "Seconds between saves of apps whose state changed; 0 turns autosave off.")
    var autosaveInterval = Int(DaemonConfiguration.defaultAutosaveInterval.components.seconds)

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(name: .customLong("plugin-host"), help: ArgumentHelp(
        "The plugin host executable (default: ../libexec/restored/restored-plugin-host from restored's directory, else beside restored).",
        valueName: "path"
    ))
    var pluginHost: String?

    @Option(name: .customLong("walk-timeout"), help: "Seconds a save or restore outside suspend, shutdown and logout may take before its plugin host is killed.")
    var walkTimeout = 30

    @Option(name: .customLong("plugin-memory-limit"), help: "MiB of data memory each plugin host may use (RLIMIT_DATA); 0 for no limit.")
    var pluginMemoryLimit = 1024

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard autosaveInterval >= 0 else {
            throw ValidationError("--autosave-interval takes a number of seconds, 0 or more")
        }
        guard walkTimeout > 0 else {
            throw ValidationError("--walk-timeout takes a number of seconds, 1 or more")
        }
        guard pluginMemoryLimit >= 0 else {
            throw ValidationError("--plugin-memory-limit takes a number of MiB, 0 or more")
        }
        let hostExecutable = pluginHost.map { FilePath($0) } ?? PluginHost.Configuration.installedExecutable()
        guard access(hostExecutable.string, X_OK) == 0 else {
            throw ValidationError("the plugin host \(hostExecutable.string) cannot be run; install restored completely (scripts/install) or name it with --plugin-host")
        }
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("unknown log level \"\(logLevel)\"; use trace, debug, info, notice, warning, error or critical")
        }
        SystemdLogHandler.bootstrap(logLevel: level, environment: environment)
        let logger = Logger(label: "restored")
        let archives = stateDirectory.map { FilePath($0) } ?? ArchiveStore.defaultDirectory(environment: environment)
        let configuration = DaemonConfiguration(
            pluginDirectories: pluginDirectories.isEmpty ? PluginLoader.searchPath(environment: environment) : pluginDirectories.map { FilePath($0) },
            stateDirectory: archives,
            appOptions: try AppOptions.parse(options),
            optionDirectories: AppOptionsFile.directories(environment: environment),
            pluginHost: PluginHost.Configuration(
                executable: hostExecutable, environment: environment, logLevel: level, memoryLimit: UInt64(pluginMemoryLimit) << 20,
                quarantineRecord: QuarantineRecord(path: archives.appending("quarantined-plugins.json"), logger: logger)
            ),
            autosaveInterval: autosaveInterval > 0 ? .seconds(autosaveInterval) : nil,
            walkTimeout: .seconds(walkTimeout)
        )
        let daemon = Daemon(configuration: configuration, logger: logger, environment: environment)
        try await daemon.run()
        if daemon.restartsForUpgrade {
            // Saved and stopped: the unit's Restart=on-failure starts the new version.
            Glibc.exit(Daemon.upgradeRestartStatus)
        }
    }
}
