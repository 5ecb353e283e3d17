import Foundation
import Logging
import RestoredArchive
import RestoredEngine
import RestoredHostProtocol
import RestoredPluginHosting
import Synchronization
import SystemPackage
import Testing

/// The quarantine kept on disk across restarts of restored.
@Suite struct QuarantineRecordTests {
    /// Collects what is logged.
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
        var logger: Logger {
            Logger(label: "test") { _ in Handler(lines: self) }
        }
        struct Handler: LogHandler {
            let lines: Lines
            var logLevel: Logger.Level = .trace
            var metadata: Logger.Metadata = [:]
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(event: LogEvent) {
                lines.lines.withLock { $0.append("\(event.level): \(event.message)") }
            }
        }
    }

    static func directory() throws -> FilePath {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("quarantine-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return FilePath(path)
    }

    @Test("A quarantine is read back by the next restored, and lifted when the plugin file changes or is removed")
    func outlivesRestored() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory.string) }
        let plugin = directory.appending("libFaulty.so")
        try Data("build 1".utf8).write(to: URL(filePath: plugin.string))
        let identity = PluginIdentity(appID: try AppID("org.restored.test.Faulty"), appVersion: "1", displayName: "Faulty", abiVersion: 1)
        let path = directory.appending("state/quarantined-plugins.json")
        let lines = Lines()

        let first = QuarantineRecord(path: path, logger: lines.logger)
        #expect(first.entry(for: plugin) == nil)
        first.add(plugin, fileIdentity: try #require(FileIdentity(of: plugin)), identity: identity, reason: "it crashed")

        let second = QuarantineRecord(path: path, logger: lines.logger)
        let entry = try #require(second.entry(for: plugin))
        #expect(entry.reason == "it crashed")
        #expect(entry.identity == identity)

        // A new build (a new file at the same path) is not quarantined.
        try FileManager.default.removeItem(atPath: plugin.string)
        try Data("build 2".utf8).write(to: URL(filePath: plugin.string))
        #expect(second.entry(for: plugin) == nil)

        second.remove(plugin)
        #expect(QuarantineRecord(path: path, logger: lines.logger).entry(for: plugin) == nil)
        let kept = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(filePath: path.string))) as? [Any]
        #expect(kept?.isEmpty == true)
        #expect(lines.lines.withLock { $0 }.isEmpty)
    }

    @Test("A record that cannot be read is one clear log line, and nothing is held in quarantine")
    func unreadable() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory.string) }
        let path = directory.appending("quarantined-plugins.json")
        try Data("{ not json".utf8).write(to: URL(filePath: path.string))
        let lines = Lines()
        let record = QuarantineRecord(path: path, logger: lines.logger)
        #expect(record.entry(for: directory.appending("libFaulty.so")) == nil)
        let logged = lines.lines.withLock { $0 }
        #expect(logged.count == 1)
        #expect(logged.first?.hasPrefix("error: \(path.string) cannot be read") == true)
        #expect(logged.first?.hasSuffix("remove the file to silence this") == true)
    }
}
