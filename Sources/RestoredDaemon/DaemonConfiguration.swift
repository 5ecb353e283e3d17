public import RestoredArchive
public import RestoredDBus
public import SystemPackage

/// What the daemon serves and where.
public struct DaemonConfiguration: Sendable {
    /// Plugin directories, searched in order.
    public var pluginDirectories: [FilePath]
    /// Where archives live.
    public var stateDirectory: FilePath
    /// Options for each app's plugin.
    public var appOptions: [AppID: [String: String]]
    /// The bus of the desktop session (the admin API, the session manager).
    public var sessionBus: DBusConnection.Bus
    /// The bus where logind is.
    public var systemBus: DBusConnection.Bus
    /// How often to save apps whose state changed, or nil for never.
    /// Apps whose state did not change are not written.
    public var autosaveInterval: Duration?

    /// The default autosave interval: five minutes.
    public static let defaultAutosaveInterval = Duration.seconds(300)

    /// Creates a configuration.
    public init(
        pluginDirectories: [FilePath], stateDirectory: FilePath, appOptions: [AppID: [String: String]] = [:],
        sessionBus: DBusConnection.Bus = .session, systemBus: DBusConnection.Bus = .system,
        autosaveInterval: Duration? = DaemonConfiguration.defaultAutosaveInterval
    ) {
        self.autosaveInterval = autosaveInterval
        self.pluginDirectories = pluginDirectories
        self.stateDirectory = stateDirectory
        self.appOptions = appOptions
        self.sessionBus = sessionBus
        self.systemBus = systemBus
    }
}
