public import RestoredArchive
public import RestoredDBus
import RestoredEngine
public import RestoredPluginHosting
public import SystemPackage

/// What the daemon serves and where.
public struct DaemonConfiguration: Sendable {
    /// Plugin directories, searched in order.
    public var pluginDirectories: [FilePath]
    /// Where archives live.
    public var stateDirectory: FilePath
    /// Options for each app's plugin from the command line (`--option`):
    /// they win over the configuration files.
    public var appOptions: [AppID: [String: String]]
    /// Where the configuration files with plugins' options are
    /// (``AppOptionsFile``), the most important first; read at start and
    /// at every `ReloadPlugins`.
    public var optionDirectories: [FilePath]
    /// The bus of the desktop session (the admin API, the session manager).
    public var sessionBus: DBusConnection.Bus
    /// The bus where logind is.
    public var systemBus: DBusConnection.Bus
    /// How often to save apps whose state changed, or nil for never.
    /// Apps whose state did not change are not written.
    public var autosaveInterval: Duration?

    /// How plugin hosts are started (the helper executable, its environment).
    public var pluginHost: PluginHost.Configuration
    /// How long a walk outside suspend, shutdown, logout and stop may take
    /// (autosave, the login restore, the admin API) before its plugin host
    /// is killed.
    public var walkTimeout: Duration
    /// The default walk timeout: 30 seconds.
    public static let defaultWalkTimeout = Duration.seconds(30)

    /// The default autosave interval: one minute. One round of the installed
    /// plugins on a session of tmux and ten apps costs about 35 ms of CPU
    /// and 30 wake-ups, and writes only what changed (`restored-bench
    /// autosave`; figures in `docs/benchmarks.md`): about 2 CPU seconds an hour, for
    /// at most a minute lost at a crash or power cut.
    public static let defaultAutosaveInterval = Duration.seconds(60)

    /// Creates a configuration.
    public init(
        pluginDirectories: [FilePath], stateDirectory: FilePath, appOptions: [AppID: [String: String]] = [:],
        optionDirectories: [FilePath] = [], pluginHost: PluginHost.Configuration,
        sessionBus: DBusConnection.Bus = .session, systemBus: DBusConnection.Bus = .system,
        autosaveInterval: Duration? = DaemonConfiguration.defaultAutosaveInterval,
        walkTimeout: Duration = DaemonConfiguration.defaultWalkTimeout
    ) {
        self.pluginHost = pluginHost
        self.walkTimeout = walkTimeout
        self.autosaveInterval = autosaveInterval
        self.pluginDirectories = pluginDirectories
        self.stateDirectory = stateDirectory
        self.appOptions = appOptions
        self.optionDirectories = optionDirectories
        self.sessionBus = sessionBus
        self.systemBus = systemBus
    }
}
