import FoundationEssentials
import Glibc
public import Logging
import RestoredArchive
public import RestoredEngine
public import RestoredHostProtocol
public import SystemPackage
import Synchronization

/// The plugins in quarantine, kept in a file so that a quarantine outlives
/// restored: a plugin that crashed its host in three walks in a row is not
/// tried again at every login, only once its file changes (GStreamer keeps
/// the plugins that crashed its scanner in its registry the same way).
///
/// The file (`quarantined-plugins.json` in the state directory) holds, per
/// plugin file, the identity of the file that failed (device, inode,
/// modification time), who the plugin said it was, and why it was
/// quarantined. An entry whose file has changed since is dropped at the
/// next start of that plugin. A file that cannot be read is one log line,
/// and restored goes on with no quarantine.
public final class QuarantineRecord: Sendable {
    /// One quarantined plugin file.
    public struct Entry: Codable, Hashable, Sendable {
        /// The plugin file.
        public var file: String
        /// The file as it was when it failed.
        public var fileIdentity: FileIdentity
        /// The app the plugin said it restores.
        public var appID: String
        /// The app version it declared.
        public var appVersion: String
        /// Its name for people.
        public var displayName: String
        /// Its ABI version.
        public var abiVersion: UInt32
        /// Why it is quarantined.
        public var reason: String

        /// Who the plugin said it was, if its app id is still valid.
        public var identity: PluginIdentity? {
            (try? AppID(appID)).map { PluginIdentity(appID: $0, appVersion: appVersion, displayName: displayName, abiVersion: abiVersion) }
        }
    }

    /// Where the record is kept.
    public let path: FilePath
    private let logger: Logger
    private let entries: Mutex<[String: Entry]>

    /// The record kept at `path`, read now.
    public init(path: FilePath, logger: Logger) {
        self.path = path
        self.logger = logger
        var entries: [String: Entry] = [:]
        // Most of the time there is no record: asked first without Foundation,
        // an idle restored does not page in its file and JSON code for nothing.
        if access(path.string, F_OK) == 0, let data = try? Data(contentsOf: URL(filePath: path.string)) {
            do {
                for entry in try JSONDecoder().decode([Entry].self, from: data) { entries[entry.file] = entry }
            } catch {
                logger.error("\(path.string) cannot be read (\(error)); no plugin is held in quarantine; remove the file to silence this")
            }
        }
        self.entries = Mutex(entries)
    }

    /// The quarantine of `file` as it is now on disk, if any.
    public func entry(for file: FilePath) -> Entry? {
        guard let entry = entries.withLock({ $0[file.string] }) else { return nil }
        return entry.fileIdentity == FileIdentity(of: file) ? entry : nil
    }

    /// Puts `file` in quarantine.
    public func add(_ file: FilePath, fileIdentity: FileIdentity, identity: PluginIdentity?, reason: String) {
        let entry = Entry(
            file: file.string, fileIdentity: fileIdentity, appID: identity?.appID.rawValue ?? "", appVersion: identity?.appVersion ?? "",
            displayName: identity?.displayName ?? "", abiVersion: identity?.abiVersion ?? 0, reason: reason
        )
        save { $0[file.string] = entry }
    }

    /// Lifts the quarantine of `file`, if it was in quarantine.
    public func remove(_ file: FilePath) {
        guard entries.withLock({ $0[file.string] }) != nil else { return }
        save { $0[file.string] = nil }
    }

    /// Changes the entries and writes the file whole (a new file renamed
    /// over the old one), under the lock so that writes do not cross.
    private func save(_ change: (inout [String: Entry]) -> Void) {
        entries.withLock { entries in
            change(&entries)
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                let data = try encoder.encode(entries.values.sorted { $0.file < $1.file })
                try FileManager.default.createDirectory(atPath: path.removingLastComponent().string, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                try data.write(to: URL(filePath: path.string), options: .atomic)
            } catch {
                logger.error("cannot write \(path.string) (\(error)); the quarantine holds until restored stops")
            }
        }
    }
}
