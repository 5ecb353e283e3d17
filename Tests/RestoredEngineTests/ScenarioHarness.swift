import Foundation
import Logging
import RestoredArchive
import RestoredEngine
import RestoredState
import SystemPackage
import Testing

/// Drives the scenario test plugin (`org.restored.test.Scenario`) through the
/// engine and reads back what the plugin recorded.
final class ScenarioHarness {
    static let appID = try! AppID("org.restored.test.Scenario")

    let plugins: PluginFixture
    let fixture: EngineFixture
    let files: TemporaryDirectory
    /// How the engine asks the plugin for its tree.
    let listing: TreeListing
    private var sessionCount = 0

    init(configuration: EngineConfiguration = EngineConfiguration(objectByteBudget: 2048), listing: TreeListing = .inOneCall) throws {
        self.listing = listing
        plugins = try PluginFixture(["TestScenarioPlugin"])
        fixture = try EngineFixture(configuration: configuration)
        files = try TemporaryDirectory()
    }

    var store: ArchiveStore { fixture.store }
    var engine: RestorationEngine { fixture.engine }

    /// A fresh plugin instance (a fresh "process state") with its own log and result files.
    func session(_ options: [String: String] = [:]) throws -> (session: InProcessPluginSession, log: FilePath, result: FilePath) {
        sessionCount += 1
        let log = files.path.appending("events-\(sessionCount).log")
        let result = files.path.appending("result-\(sessionCount).json")
        var all = options
        all["log"] = log.string
        all["result"] = result.string
        let session = try plugins.plugin(Self.appID.rawValue).makeSession(options: all, logger: fixture.log.logger())
        session.listsTreeInOneCall = listing == .inOneCall
        return (session, log, result)
    }

    func preserve(_ options: [String: String] = [:], occasion: SaveOccasion = .request) throws -> (report: PreservationReport, events: [String]) {
        let (session, log, _) = try session(options)
        let report = engine.preserve(session, occasion: occasion)
        return (report, Self.lines(log))
    }

    func restore(
        _ options: [String: String] = [:], mode: RestorationMode = .automatic, reason: RestoreReason = .session, restoresIntoRunningApp: Bool = false
    ) throws -> (report: RestorationReport, events: [String], result: [String: [String: String]]) {
        let (session, log, result) = try session(options)
        let report = engine.restore(session, mode: mode, reason: reason, restoresIntoRunningApp: restoresIntoRunningApp)
        let data = (try? Data(contentsOf: URL(fileURLWithPath: result.string))) ?? Data("{}".utf8)
        let decoded = (try? JSONSerialization.jsonObject(with: data)) as? [String: [String: String]] ?? [:]
        return (report, Self.lines(log), decoded)
    }

    func archive() throws -> Archive {
        try store.read(Self.appID).archive
    }

    /// The restores of the stored archive counted as started and not
    /// finished (R15), as a restore reads them.
    func restoreAttempts() throws -> UInt32 {
        try store.read(Self.appID).restoreAttempts
    }

    static func lines(_ file: FilePath) -> [String] {
        ((try? String(contentsOfFile: file.string, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The decoded keyed container of the object at `path`.
    static func state(of path: String, in archive: Archive) throws -> [String: StoredValue] {
        let object = try #require(archive.objects.first { $0.path.description == path }, "no object at \(path)")
        var result: [String: StoredValue] = [:]
        for entry in try StateContainerReader.decodeEntries(object.state) { result[entry.key] = entry.value }
        return result
    }
}

/// How the engine asks a plugin for its tree: the SDK's `list_tree` in one
/// call, or `list_objects` once per object, as for a plugin without
/// `list_tree`. The rules hold either way; their tests run through both.
enum TreeListing: String, CaseIterable, CustomTestStringConvertible {
    case inOneCall = "list_tree"
    case objectByObject = "list_objects"

    var testDescription: String { rawValue }
}

extension Array where Element == String {
    /// The index of the first event starting with `prefix`.
    func firstIndex(prefixed prefix: String) -> Int? { firstIndex { $0.hasPrefix(prefix) } }
    /// The index of the last event starting with `prefix`.
    func lastIndex(prefixed prefix: String) -> Int? { lastIndex { $0.hasPrefix(prefix) } }
}
