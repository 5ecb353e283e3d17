import Foundation
import RestoredArchive
import RestoredState
import RestoredTestSupport
import SystemPackage
import Testing

/// Archives with known contents in a temporary state directory, and
/// `restored-ctl` run against them or against a real daemon.
struct ControlFixture {
    let bus: PrivateBus
    var root: String { bus.directory.path }
    var state: String { root + "/state" }
    var plugins: String { root + "/plugins" }
    var notes: String { root + "/notes" }

    static let notes = "org.example.Notes"
    static let broken = "org.example.Broken"

    /// A private bus (nobody owns org.restored1 on it yet) and an empty state directory.
    static func make() async throws -> ControlFixture {
        let fixture = ControlFixture(bus: try await PrivateBus.start())
        for directory in [fixture.state, fixture.plugins, fixture.notes + "/notes"] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        return fixture
    }

    /// A notes archive with every kind of content, written twice (generations 1 and 2).
    func writeNotesArchive() throws {
        let store = ArchiveStore(directory: FilePath(state))
        var archive = Archive(
            appID: try AppID(Self.notes), appVersion: "2.1", systemVersion: "restored 0.1.0 (Linux)",
            timestamp: 1_763_700_000_000_000_000, plugin: "libExampleNotesPlugin.so",
            appState: StateContainerWriter.encode([StoredEntry(key: "lastOpened", value: .string("c"))]),
            objects: [
                ArchivedObject(
                    path: ObjectPath(identifiers: "Main"), className: "NotesWindow", restorationClass: nil, kind: .child,
                    state: StateContainerWriter.encode([
                        StoredEntry(key: "frame", value: .array([.double(0), .double(0), .double(800), .double(600)])),
                        StoredEntry(key: "fullScreen", value: .bool(false)),
                    ])
                ),
                ArchivedObject(
                    path: ObjectPath(identifiers: "Main", "List"), className: "NoteList", restorationClass: nil, kind: .child,
                    state: StateContainerWriter.encode([StoredEntry(key: "selected", value: .array([.int64(2)]))])
                ),
                ArchivedObject(
                    path: ObjectPath(identifiers: "Main", "Editor"), className: "NoteEditor", restorationClass: "EditorClass", kind: .child,
                    state: StateContainerWriter.encode([
                        StoredEntry(key: "text", value: .string("before the reboot")),
                        StoredEntry(key: "note", value: .reference(ObjectPath(identifiers: "Main", "List"))),
                        StoredEntry(key: "edited", value: .date(1_763_699_000)),
                    ])
                ),
                ArchivedObject(
                    path: ObjectPath(identifiers: "Main", "Find"), className: "FindPanel", restorationClass: nil, kind: .presented,
                    state: StateContainerWriter.encode([StoredEntry(key: "query", value: .string("todo"))])
                ),
            ],
            snapshot: Snapshot(mediaType: "image/png", data: [UInt8](repeating: 7, count: 2048))
        )
        _ = try store.write(archive)
        archive.ignoresSnapshot = true
        _ = try store.write(archive)
    }

    /// An archive of another app whose only file has a flipped byte.
    func writeBrokenArchive() throws {
        let store = ArchiveStore(directory: FilePath(state))
        _ = try store.write(Archive(appID: try AppID(Self.broken), timestamp: 1_763_700_000_000_000_000))
        let file = state + "/\(Self.broken)/archive"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: file))
    }

    /// The environment of a run: UTC, no colour, archives in `state` by
    /// default, the private bus as session and system bus.
    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        environment["NO_COLOR"] = "1"
        environment["XDG_STATE_HOME"] = root + "/xdg-state"
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        environment["RESTORED_PLUGIN_PATH"] = plugins
        environment.removeValue(forKey: "JOURNAL_STREAM")
        return environment
    }

    /// Runs the built `restored-ctl`.
    func ctl(_ arguments: String..., environment overrides: [String: String] = [:]) async throws -> CompletedCommand {
        try await CompletedCommand.run(
            BuildProducts.executable("restored-ctl"), arguments, environment: environment.merging(overrides) { _, new in new }, in: bus.directory
        )
    }

    /// Replaces what changes from run to run (the temporary directory,
    /// times, restored's version) with placeholders.
    func normalized(_ text: String) -> String {
        var text = text.replacingOccurrences(of: root, with: "<root>")
        for (pattern, placeholder) in [
            (#"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}"#, "<time>"),
            (#"version:( +)\S+"#, "version:$1<version>"),
        ] {
            text = text.replacingOccurrences(of: pattern, with: placeholder, options: .regularExpression)
        }
        return text
    }

    /// Compares `actual` with `Expected/<name>.txt`; with
    /// `RESTORED_UPDATE_EXPECTED=1` in the environment, writes it there instead.
    static func expectMatchesExpected(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Expected/\(name).txt")
        if ProcessInfo.processInfo.environment["RESTORED_UPDATE_EXPECTED"] == "1" {
            try actual.write(to: file, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: file, encoding: .utf8)
        #expect(actual == expected, "restored-ctl's output differs from Expected/\(name).txt", sourceLocation: sourceLocation)
    }
}

extension ControlFixture {
    /// restored on the fixture's bus, with logind's mock and the notes plugin.
    struct RunningDaemon {
        let process: ChildProcess
        let logind: LogindMock
        let notify: NotifyListener

        func stop() async -> Int32? {
            let status = await process.terminated()
            logind.stop()
            notify.close()
            return status
        }
    }

    /// Starts restored and waits until it is ready; `plugins` are the
    /// build products it loads beside the notes plugin, `options` more
    /// `--option` values (`app:key=value`).
    func startDaemon(plugins extra: [String] = [], withNotes: Bool = true, options: [String] = []) async throws -> RunningDaemon {
        let logind = try await LogindMock.start(on: bus)
        for plugin in (withNotes ? ["ExampleNotesPlugin"] : []) + extra where !FileManager.default.fileExists(atPath: plugins + "/lib\(plugin).so") {
            try FileManager.default.createSymbolicLink(atPath: plugins + "/lib\(plugin).so", withDestinationPath: BuildProducts.plugin(plugin))
        }
        try "a\nb\nc".write(toFile: notes + "/notes/order", atomically: true, encoding: .utf8)
        try #"{"editorText":"typed in the test","selectedIndices":[1],"editorNoteID":"b"}"#.write(toFile: notes + "/ui.json", atomically: true, encoding: .utf8)
        let notify = try NotifyListener(path: root + "/notify")
        var environment = self.environment
        environment["NOTIFY_SOCKET"] = notify.address
        let process = try ChildProcess(
            BuildProducts.executable("restored"),
            ["--plugin-dir", plugins, "--state-dir", state, "--option", "\(Self.notes):live-dir=\(notes)", "--autosave-interval", "0"]
                + options.flatMap { ["--option", $0] },
            environment: environment, log: root + "/restored.log"
        )
        while let message = try await notify.receiveOffPool(timeout: 20_000) {
            if message.split(separator: "\n").contains("READY=1") { return RunningDaemon(process: process, logind: logind, notify: notify) }
        }
        process.stop()
        throw ChildProcessError("restored sent no READY=1; see \(root)/restored.log")
    }
}
