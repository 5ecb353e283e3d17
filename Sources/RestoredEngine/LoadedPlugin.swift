internal import CRestoredPlugin
public import Logging
public import RestoredArchive
public import RestoredState
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
    /// What it declares of itself (0 for a plugin whose table predates them).
    public let traits: PluginTraits
    /// The file as it was when it was loaded.
    private let loadedIdentity: FileIdentity?

    /// The plugin's descriptor as this host reads it: its own table copied
    /// as far as its `struct_size` goes, by whole fields, fields it predates
    /// left NULL.
    let descriptor: UnsafePointer<restored_plugin_descriptor>
    /// The descriptor the plugin returned, which `create` receives: one
    /// implementation may serve several descriptors and tells them apart by it.
    let pluginDescriptor: UnsafePointer<restored_plugin_descriptor>

    init(file: FilePath, appID: AppID, descriptor original: UnsafePointer<restored_plugin_descriptor>) {
        let copy = UnsafeMutablePointer<restored_plugin_descriptor>.allocate(capacity: 1)
        copy.initialize(to: restored_plugin_descriptor())
        let size = Self.copiedSize(of: original.pointee.struct_size)
        UnsafeMutableRawPointer(copy).copyMemory(from: UnsafeRawPointer(original), byteCount: size)
        self.file = file
        self.loadedIdentity = FileIdentity(of: file)
        self.appID = appID
        self.pluginDescriptor = original
        // Kept for the life of the process, like the plugin's image.
        self.descriptor = UnsafePointer(copy)
        self.abiVersion = copy.pointee.abi_version
        self.traits = PluginTraits(rawValue: copy.pointee.traits)
        self.appVersion = copy.pointee.app_version.map { String(cString: $0) } ?? ""
        self.displayName = copy.pointee.display_name.map { String(cString: $0) } ?? appID.rawValue
    }

    /// How many bytes of a descriptor whose `struct_size` is `structSize`
    /// this host copies: up to the end of the last field the size covers
    /// whole. A size that ends inside a field (no compiler makes one, but
    /// a descriptor written by hand can) leaves that field out, where
    /// copying it would make half a pointer of a callback.
    static func copiedSize(of structSize: UInt32) -> Int {
        let layout = MemoryLayout<restored_plugin_descriptor>.self
        // The ends of the fields added after the first table, in order
        // (the loader refuses a table that does not reach the first).
        let ends = [
            layout.offset(of: \.traits)! + MemoryLayout<UInt32>.size,
            layout.offset(of: \.save_decision)! + MemoryLayout<UnsafeRawPointer>.size,
            layout.offset(of: \.list_tree)! + MemoryLayout<UnsafeRawPointer>.size,
        ]
        let size = min(Int(structSize), layout.size)
        return ends.last { $0 <= size } ?? min(size, layout.offset(of: \.traits)!)
    }

    /// Whether the file was replaced or rewritten since it was loaded (a new
    /// build): this process runs the old one as long as it lives (restored's
    /// plugin hosts start a new process for it).
    public var hasChangedOnDisk: Bool {
        FileIdentity(of: file) != loadedIdentity
    }

    /// Starts an instance of the plugin with the app's options.
    public func makeSession(options: [String: String] = [:], logger: Logger) throws(PluginCallError) -> InProcessPluginSession {
        try InProcessPluginSession(plugin: self, options: options, logger: logger)
    }
}
