internal import CRestoredPlugin
public import Logging
import RestoredArchive
public import SystemPackage

/// Finds, checks and loads plugins (shared objects exporting `restored_plugin_v1`).
///
/// Directories are searched in order; within one, files ending in `.so` in
/// name order. A plugin is refused, with one log line naming the file and the
/// reason, when the file or a directory on its way can be written by other
/// users, when it cannot be loaded, lacks the symbol, speaks another ABI
/// version, was built for another Swift runtime (``RuntimeRecord``), declares
/// an invalid app id, or claims an app that an earlier plugin already restores. Refusals never stop the others from loading.
public struct PluginLoader: Sendable {
    /// The file name of the SDK runtime, which is not a plugin.
    public static let sdkRuntimeName = "libRestorationKit.so"

    /// The directories to search, first wins.
    public var directories: [FilePath]
    /// The SDK runtime loaded before any plugin, so that every Swift plugin
    /// shares this one copy wherever the plugin file lives.
    public var sdkRuntime: FilePath?

    /// Creates a loader.
    public init(directories: [FilePath], sdkRuntime: FilePath? = PluginLoader.defaultSDKRuntime()) {
        self.directories = directories
        self.sdkRuntime = sdkRuntime
    }

    /// `RESTORED_PLUGIN_PATH` (colon-separated), then
    /// `$XDG_DATA_HOME/restored/plugins` (default `~/.local/share`), the
    /// plugin directory of the prefix `executable` is installed under
    /// (``installedPluginDirectory(executable:)``: `PREFIX=~/.local
    /// scripts/install` works for one user), `/usr/local/lib/restored/plugins`
    /// and `/usr/lib/restored/plugins`, each once. restored, restored-ctl
    /// (`doctor`) and restored-demo search the same directories.
    public static func searchPath(environment: [String: String], executable: FilePath? = runningExecutable()) -> [FilePath] {
        var directories: [FilePath] = []
        if let custom = environment["RESTORED_PLUGIN_PATH"] {
            directories += custom.split(separator: ":").map { FilePath(String($0)) }
        }
        directories.append(FilePath(XDGBaseDirectories(environment: environment).dataHome).appending("restored/plugins"))
        if let installed = executable.flatMap(installedPluginDirectory(executable:)) { directories.append(installed) }
        for system in ["/usr/local/lib/restored/plugins", "/usr/lib/restored/plugins"] as [FilePath] where !directories.contains(system) {
            directories.append(system)
        }
        return directories
    }

    /// `PREFIX/lib/restored/plugins` for an executable installed as
    /// `PREFIX/bin/NAME` (where `scripts/install` puts the plugins, and
    /// what `restored-plugin.pc` names `plugindir`); nil for one that is
    /// not in a `bin` directory, as in a build directory.
    public static func installedPluginDirectory(executable: FilePath) -> FilePath? {
        let directory = executable.removingLastComponent()
        guard directory.lastComponent?.string == "bin" else { return nil }
        return directory.removingLastComponent().appending("lib/restored/plugins")
    }

    /// The running program's path (`/proc/self/exe`), or nil.
    public static func runningExecutable() -> FilePath? {
        try? realPath("/proc/self/exe")
    }

    /// `libRestorationKit.so` beside the running executable, if it is there;
    /// otherwise nil, and the dynamic linker's search path applies.
    public static func defaultSDKRuntime() -> FilePath? {
        guard let executable = runningExecutable() else { return nil }
        let candidate = executable.removingLastComponent().appending(sdkRuntimeName)
        return access(candidate.string, R_OK) == 0 ? candidate : nil
    }

    /// Loads the SDK runtime, once per process (dlopen counts references).
    public func loadSDKRuntime(logger: Logger) {
        guard let sdkRuntime else { return }
        if dlopen(sdkRuntime.string, RTLD_NOW | RTLD_GLOBAL) == nil {
            logger.warning("cannot load the SDK runtime \(sdkRuntime.string): \(Self.dlerrorText()); Swift plugins will not load")
        }
    }

    /// The plugin files of the directories, in search order, without loading
    /// any: each with the refusal of a file other users could write, if so.
    /// Plugin hosts load them (restored itself never does).
    public func candidates() -> [(file: FilePath, refusal: PluginRefusal?)] {
        var found: [(file: FilePath, refusal: PluginRefusal?)] = []
        for directory in directories {
            guard let names = try? Self.sharedObjects(in: directory) else { continue }
            for name in names {
                let file = directory.appending(name)
                let refusal = Self.insecurePath(for: file).map {
                    PluginRefusal(file: file, reason: .insecurePermissions($0.path, mode: $0.mode, owner: $0.owner))
                }
                found.append((file, refusal))
            }
        }
        return found
    }

    /// Loads every plugin found.
    public func load(logger: Logger) -> PluginCatalog {
        load(keeping: PluginCatalog(), logger: logger)
    }

    /// Scans the directories again: a plugin of `previous` whose file is
    /// still there, and still safe, is kept as it is (a loaded image is never
    /// loaded twice nor unloaded, so a new build at the same path needs a
    /// new process: ``LoadedPlugin/hasChangedOnDisk`` tells), new
    /// files are loaded and checked, files refused before are checked again,
    /// and plugins whose file is gone are left out.
    public func load(keeping previous: PluginCatalog, logger: Logger) -> PluginCatalog {
        loadSDKRuntime(logger: logger)
        var catalog = PluginCatalog()
        for directory in directories {
            let files: [String]
            do {
                files = try Self.sharedObjects(in: directory)
            } catch {
                logger.debug("plugin directory \(directory.string) skipped: \(error)")
                continue
            }
            for name in files {
                let file = directory.appending(name)
                if let kept = previous.plugins.first(where: { $0.file == file }) {
                    if let insecure = Self.insecurePath(for: file) {
                        // Writable by others since it was loaded: no longer trusted.
                        catalog.refusals.append(PluginRefusal(file: file, reason: .insecurePermissions(insecure.path, mode: insecure.mode, owner: insecure.owner)))
                    } else if let first = catalog.plugin(for: kept.appID) {
                        catalog.refusals.append(PluginRefusal(file: file, reason: .duplicateAppID(kept.appID.rawValue, loadedFrom: first.file)))
                    } else {
                        catalog.plugins.append(kept)
                    }
                    continue
                }
                switch loadPlugin(at: file, catalog: catalog) {
                case .success(let plugin):
                    catalog.plugins.append(plugin)
                    logger.info("loaded plugin \(file.string) for \(plugin.appID)", metadata: ["app": "\(plugin.appID)"])
                case .failure(let refusal):
                    catalog.refusals.append(refusal)
                    logger.error("\(refusal.description)")
                }
            }
        }
        return catalog
    }

    /// Loads one plugin file, or says why not; `catalog` holds the plugins
    /// loaded before it, for the duplicate check. Call ``loadSDKRuntime(logger:)`` first.
    public func loadPlugin(at file: FilePath, catalog: PluginCatalog = PluginCatalog()) -> Result<LoadedPlugin, PluginRefusal> {
        func refuse(_ reason: PluginRefusal.Reason) -> Result<LoadedPlugin, PluginRefusal> {
            .failure(PluginRefusal(file: file, reason: reason))
        }
        if let insecure = Self.insecurePath(for: file) {
            return refuse(.insecurePermissions(insecure.path, mode: insecure.mode, owner: insecure.owner))
        }
        // Before any of the plugin's code runs (dlopen runs its constructors):
        // a Swift plugin built for another runtime would crash or misread.
        if let record = try? RuntimeRecord(readingNotesOf: file), record != .current {
            return refuse(.wrongRuntime(found: record.text, expected: RuntimeRecord.current.text))
        }
        guard let handle = dlopen(file.string, RTLD_NOW | RTLD_LOCAL) else {
            return refuse(.loadFailed(Self.dlerrorText()))
        }
        guard let symbol = dlsym(handle, RESTORED_PLUGIN_SYMBOL) else {
            return refuse(.missingSymbol)
        }
        let entry = unsafeBitCast(symbol, to: restored_plugin_entry.self)
        guard let descriptor = entry() else {
            return refuse(.noDescriptor)
        }
        guard descriptor.pointee.abi_version == RESTORED_PLUGIN_ABI_VERSION else {
            return refuse(.wrongABIVersion(found: descriptor.pointee.abi_version, expected: RESTORED_PLUGIN_ABI_VERSION))
        }
        // Version 1 is the first table: nothing smaller is a descriptor. A
        // later host keeps this minimum and reads only what a plugin's table
        // covers (LoadedPlugin copies it).
        guard descriptor.pointee.struct_size >= UInt32(Self.minimumDescriptorSize) else {
            return refuse(.truncatedDescriptor(size: descriptor.pointee.struct_size))
        }
        let rawAppID = descriptor.pointee.app_id.map { String(cString: $0) } ?? ""
        let appID: AppID
        do {
            appID = try AppID(rawAppID)
        } catch {
            return refuse(.invalidAppID(rawAppID, reason: error.description))
        }
        if let first = catalog.plugin(for: appID) {
            return refuse(.duplicateAppID(appID.rawValue, loadedFrom: first.file))
        }
        // Checked on the host's copy, read only as far as the plugin's
        // struct_size: never past the end of an older plugin's table.
        let loaded = LoadedPlugin(file: file, appID: appID, descriptor: descriptor)
        if let missing = Self.missingRequiredCallback(loaded.descriptor.pointee) {
            return refuse(.missingCallback(missing))
        }
        return .success(loaded)
    }

    /// The size of the first version of `restored_plugin_descriptor`: up to
    /// the first field added after it.
    static let minimumDescriptorSize = MemoryLayout<restored_plugin_descriptor>.offset(of: \.traits)!

    /// The first callback that ABI 1 requires and the descriptor lacks.
    static func missingRequiredCallback(_ descriptor: restored_plugin_descriptor) -> String? {
        let required: [(String, Bool)] = [
            ("create", descriptor.create != nil),
            ("destroy", descriptor.destroy != nil),
            ("end_walk", descriptor.end_walk != nil),
            ("should_save_application_state", descriptor.should_save_application_state != nil),
            ("list_objects", descriptor.list_objects != nil),
            ("object_from_restoration_class", descriptor.object_from_restoration_class != nil),
            ("registered_object", descriptor.registered_object != nil),
            ("describe_object", descriptor.describe_object != nil),
            ("restore_identity", descriptor.restore_identity != nil),
        ]
        return required.first { !$0.1 }?.0
    }

    /// The `.so` files of a directory, in name order, without the SDK runtime.
    static func sharedObjects(in directory: FilePath) throws(Errno) -> [String] {
        guard let stream = opendir(directory.string) else { throw Errno(rawValue: errno) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".so"), name != sdkRuntimeName, !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    /// The first of the file (through symlinks), its directory and the
    /// directory it was found in that other users could write, if any.
    static func insecurePath(for file: FilePath) -> (path: FilePath, mode: UInt32, owner: UInt32)? {
        var candidates = [file, file.removingLastComponent()]
        if let real = try? realPath(file) {
            candidates += [real, real.removingLastComponent()]
        }
        let me = geteuid()
        for path in candidates {
            var info = stat()
            guard stat(path.string, &info) == 0 else { continue }
            let writableByOthers = info.st_mode & (S_IWGRP | S_IWOTH) != 0
            let foreignOwner = info.st_uid != me && info.st_uid != 0
            // A sticky shared directory (like /tmp) protects files of others.
            let isStickyDirectory = info.st_mode & S_IFMT == S_IFDIR && info.st_mode & S_ISVTX != 0
            if (writableByOthers && !isStickyDirectory) || foreignOwner {
                return (path, info.st_mode, info.st_uid)
            }
        }
        return nil
    }

    static func realPath(_ path: FilePath) throws(Errno) -> FilePath {
        guard let resolved = realpath(path.string, nil) else { throw Errno(rawValue: errno) }
        defer { free(resolved) }
        return FilePath(String(cString: resolved))
    }

    static func dlerrorText() -> String {
        dlerror().map { String(cString: $0) } ?? "unknown error"
    }
}

#if canImport(Glibc)
import Glibc
import SystemSupport
#endif
