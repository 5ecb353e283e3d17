public import SystemPackage

/// A plugin file that was not loaded, and why.
public struct PluginRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why a plugin was refused.
    public enum Reason: Hashable, Sendable {
        /// dlopen failed (missing dependency, not a shared object ...).
        case loadFailed(String)
        /// The file does not export `restored_plugin_v1`.
        case missingSymbol
        /// `restored_plugin_v1()` returned NULL.
        case noDescriptor
        /// The descriptor's ABI version is not the host's.
        case wrongABIVersion(found: UInt32, expected: UInt32)
        /// The descriptor is smaller than version 1 of the ABI requires.
        case truncatedDescriptor(size: UInt32)
        /// A callback the ABI requires is NULL.
        case missingCallback(String)
        /// The app id is not a valid freedesktop application id.
        case invalidAppID(String, reason: String)
        /// Another plugin, loaded first, already restores this app.
        case duplicateAppID(String, loadedFrom: FilePath)
        /// The file or its directory can be written by other users.
        case insecurePermissions(FilePath, mode: UInt32, owner: UInt32)
        /// The plugin loaded, but its `create` callback failed.
        case startFailed(String)
        /// A Swift plugin built for another runtime: its record is `found`,
        /// the host's `expected` (``RuntimeRecord``). Read from the file, before
        /// any of the plugin's code ran.
        case wrongRuntime(found: String, expected: String)
        /// The plugin host installed beside restored is of a restored
        /// version this one cannot speak to (what was seen, one line): the
        /// files of two versions, before any of the plugin's code ran.
        case hostVersionMismatch(String)
    }

    /// The plugin file.
    public var file: FilePath
    /// Why it was refused.
    public var reason: Reason

    /// Creates a refusal.
    public init(file: FilePath, reason: Reason) {
        self.file = file
        self.reason = reason
    }

    /// A short machine-friendly name of the reason (`wrong-abi-version` ...).
    public var code: String {
        switch reason {
        case .loadFailed: "load-failed"
        case .missingSymbol: "missing-symbol"
        case .noDescriptor: "no-descriptor"
        case .wrongABIVersion: "wrong-abi-version"
        case .truncatedDescriptor: "truncated-descriptor"
        case .missingCallback: "missing-callback"
        case .invalidAppID: "invalid-app-id"
        case .duplicateAppID: "duplicate-app-id"
        case .insecurePermissions: "insecure-permissions"
        case .startFailed: "start-failed"
        case .wrongRuntime: "wrong-runtime"
        case .hostVersionMismatch: "host-version-mismatch"
        }
    }

    /// One line naming the file, the reason, and what to do.
    public var description: String {
        let name = file.string
        switch reason {
        case .loadFailed(let error):
            return "refused plugin \(name): it could not be loaded (\(error)); rebuild it against this system's libraries"
        case .missingSymbol:
            return "refused plugin \(name): it does not export restored_plugin_v1; it is not a restored plugin, remove it from the plugin directory"
        case .noDescriptor:
            return "refused plugin \(name): restored_plugin_v1() returned no descriptor; fix the plugin"
        case .wrongABIVersion(let found, let expected):
            return "refused plugin \(name): it speaks plugin ABI \(found), this restored speaks \(expected); rebuild it against this SDK"
        case .truncatedDescriptor(let size):
            return "refused plugin \(name): its descriptor is \(size) bytes, too small for ABI 1; rebuild it against this SDK"
        case .missingCallback(let name):
            return "refused plugin \(file.string): its descriptor has no \(name) callback, which plugin ABI 1 requires; fix the plugin"
        case .invalidAppID(let appID, let reason):
            return "refused plugin \(name): app id \"\(appID)\" is invalid (\(reason))"
        case .duplicateAppID(let appID, let first):
            return "refused plugin \(name): app \(appID) is already restored by \(first.string); remove one of them"
        case .insecurePermissions(let path, let mode, let owner):
            let remedy = owner != 0 && owner != geteuid()
                ? "give it to you or to root (chown), and run chmod go-w \(path.string)"
                : "run chmod go-w \(path.string)"
            return "refused plugin \(name): \(path.string) (mode \(String(mode & 0o7777, radix: 8)), owner uid \(owner)) can be written by other users; \(remedy)"
        case .startFailed(let error):
            return "refused plugin \(name): it loaded but could not start (\(error)); see the plugin's documentation or its author"
        case .hostVersionMismatch(let seen):
            return "refused plugin \(name): the plugin host restored runs it in is of another restored version (\(seen)); restored's files are of two versions (an upgrade not finished, or a second install): finish the upgrade or reinstall, then run systemctl --user restart restored"
        case .wrongRuntime(let found, let expected):
            return "refused plugin \(name): it was built for another Swift runtime (\(found)), and Swift plugins run only in their own (this is \(expected)); rebuild it against this restored's SDK with its toolchain (SDK/README.md, Building a Swift plugin for the installed package)"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
