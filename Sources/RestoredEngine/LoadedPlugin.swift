internal import CRestoredPlugin
public import Logging
public import RestoredArchive
public import SystemPackage

/// A plugin file that passed every check and was loaded into this process.
///
/// The shared object stays loaded for the life of the process: Swift images
/// cannot be unloaded safely, and plugins are few.
public final class LoadedPlugin: @unchecked Sendable {
    // Unchecked: every stored property is immutable after init, and the
    // descriptor it points to is immutable and lives as long as the process.

    /// The plugin file.
    public let file: FilePath
    /// The app it restores.
    public let appID: AppID
    /// The app version it declares.
    public let appVersion: String
    /// Its name for people.
    public let displayName: String
    /// The ABI version it declared.
    public let abiVersion: UInt32

    let descriptor: UnsafePointer<restored_plugin_descriptor>

    init(file: FilePath, appID: AppID, descriptor: UnsafePointer<restored_plugin_descriptor>) {
        self.file = file
        self.appID = appID
        self.descriptor = descriptor
        self.abiVersion = descriptor.pointee.abi_version
        self.appVersion = descriptor.pointee.app_version.map { String(cString: $0) } ?? ""
        self.displayName = descriptor.pointee.display_name.map { String(cString: $0) } ?? appID.rawValue
    }

    /// Starts an instance of the plugin with the app's options.
    public func makeSession(options: [String: String] = [:], logger: Logger) throws(PluginCallError) -> InProcessPluginSession {
        try InProcessPluginSession(plugin: self, options: options, logger: logger)
    }
}
