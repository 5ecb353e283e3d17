import Foundation
import RestoredArchive
import RestoredState
import RestoredTestSupport
import SystemPackage
import Testing

/// The plugin author's guide's Hello plugin (`SDK/README.md`) is the file
/// that is built, and it reads and
/// writes its live app through a real restored.
@Suite struct HelloExampleTests {
    static let hello = "org.example.Hello"

    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    @Test("The plugin guide shows Plugins/ExampleHelloPlugin/HelloPlugin.swift exactly")
    func documentedAsBuilt() throws {
        let source = try String(contentsOfFile: Self.repository + "/Plugins/ExampleHelloPlugin/HelloPlugin.swift", encoding: .utf8)
        for document in ["SDK/README.md"] {
            let text = try String(contentsOfFile: Self.repository + "/" + document, encoding: .utf8)
            #expect(text.contains("```swift\n" + source + "```\n"), "\(document) does not show HelloPlugin.swift as it is built")
        }
    }

    @Test("Hello: a save reads the live app, a live file that cannot be read keeps the last archive, a restore writes the text back, the app closed in a live session discards it (R6)")
    func liveApp() async throws {
        let fixture = try await ControlFixture.make()
        let live = fixture.root + "/hello/text"
        try FileManager.default.createDirectory(atPath: fixture.root + "/hello", withIntermediateDirectories: true)
        try "draft 1".write(toFile: live, atomically: true, encoding: .utf8)
        let daemon = try await fixture.startDaemon(plugins: ["ExampleHelloPlugin"], options: ["\(Self.hello):live-file=\(live)"])
        let store = ArchiveStore(directory: FilePath(fixture.state))
        let appID = try AppID(Self.hello)
        func savedText() throws -> StoredValue? {
            let archive = try store.read(appID).archive
            let editor = try #require(archive.objects.first { $0.path.description == "Editor" })
            return try StateContainerReader.decodeEntries(editor.state).first { $0.key == "text" }?.value
        }

        let save = try await fixture.ctl("save", Self.hello)
        #expect(save.status == 0 && save.error.isEmpty, "\(save.error)")
        #expect(try savedText() == .string("draft 1"))

        // The live file is there but cannot be read (a directory in its place): keep.
        try FileManager.default.removeItem(atPath: live)
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: false)
        let kept = try await fixture.ctl("save", Self.hello)
        #expect(kept.status == 0)
        #expect(kept.error == "restored-ctl: \(Self.hello): its plugin has nothing new to say now and keeps the last archive\n", "\(kept.error)")
        #expect(try store.read(appID).archive.generation == 1)

        // A restore hands the saved text to the app.
        try FileManager.default.removeItem(atPath: live)
        let restore = try await fixture.ctl("restore", Self.hello)
        #expect(restore.status == 0 && restore.error.isEmpty, "\(restore.error)")
        #expect(try String(contentsOfFile: live, encoding: .utf8) == "draft 1")

        // The user closed Hello while the session goes on: the archive is stale.
        try FileManager.default.removeItem(atPath: live)
        #expect(try await fixture.ctl("save", Self.hello).status == 0)
        #expect(throws: ArchiveStoreError.noArchive(appID)) { try store.read(appID) }
        #expect(await daemon.stop() == 0)
    }
}
