public import RestoredEngine

/// What a helper needs to start its plugin.
public struct HostStart: Sendable {
    /// The plugin file.
    public var pluginFile: String
    /// The log level (`debug`, `info` ...).
    public var logLevel: String
    /// Budgets and the system version for the walks.
    public var configuration: EngineConfiguration
    /// The most memory the helper's data may take (`RLIMIT_DATA`), in bytes; 0 for no limit.
    public var memoryLimit: UInt64
    /// The version of the restored that sends it.
    public var restoredVersion: String

    /// Creates a start request of this restored.
    public init(pluginFile: String, logLevel: String, configuration: EngineConfiguration, memoryLimit: UInt64, restoredVersion: String = RestoredVersion.string) {
        self.pluginFile = pluginFile
        self.logLevel = logLevel
        self.configuration = configuration
        self.memoryLimit = memoryLimit
        self.restoredVersion = restoredVersion
    }
}
