import Foundation
import RestoredArchive
import RestoredEngine
import SystemPackage
import Testing

/// Preserve the example apps, kill them, restore into fresh instances, compare.
@Suite struct RoundTripTests {
    /// The notes app's live files, seeded like a running app.
    struct NotesApp {
        let directory: FilePath

        init(in parent: TemporaryDirectory) throws {
            directory = try parent.subdirectory("notes-app")
            try FileManager.default.createDirectory(atPath: directory.appending("notes").string, withIntermediateDirectories: true)
            try write("groceries\nideas\ntrip\nbudget", to: "notes/order")
        }

        func write(_ text: String, to name: String) throws {
            try text.write(toFile: directory.appending(name).string, atomically: true, encoding: .utf8)
        }

        func read(_ name: String) -> String? {
            try? String(contentsOfFile: directory.appending(name).string, encoding: .utf8)
        }

        func ui() throws -> [String: Any] {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory.appending("ui.json").string))
            return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        }

        var options: [String: String] { ["live-dir": directory.string] }
    }

    static let liveUI = """
        {"windowSize":[1280,720],"searchQuery":"milk","splitDivider":0.4,"selectedIndices":[1,3],
         "firstVisibleIndex":1,"editorNoteID":"ideas","editorText":"Ideas\\n- ünïcode ✓","cursor":9,
         "editorFocused":true,"settingsOpen":true,"settingsTab":"fonts","fontSize":17.5,"recentNoteIDs":["ideas","trip"]}
        """

    @Test("R2, R4, R8, R9, R11, R12: the notes app comes back as it was, selection following the reordered list")
    func notesRoundTrip() throws {
        let plugins = try PluginFixture(["ExampleNotesPlugin"])
        let fixture = try EngineFixture()
        let app = try NotesApp(in: fixture.directory)
        try app.write(Self.liveUI, to: "ui.json")
        let plugin = try plugins.plugin("org.example.Notes")

        let saved = fixture.engine.preserve(try plugin.makeSession(options: app.options, logger: fixture.log.logger()))
        #expect(saved.outcome == .saved(generation: 1))
        #expect(saved.savedPaths.map(\.description) == ["Main", "Main/Split", "Main/Split/List", "Main/Split/Editor", "Main/Settings"])

        // The app is killed; its notes are reordered while it is away.
        try FileManager.default.removeItem(atPath: app.directory.appending("ui.json").string)
        try app.write("budget\ntrip\nideas\ngroceries", to: "notes/order")

        let restored = fixture.engine.restore(try plugin.makeSession(options: app.options, logger: fixture.log.logger()))
        #expect(restored.outcome == .restored)
        #expect(restored.issues.isEmpty)
        #expect(restored.snapshot == .presented)
        #expect(app.read("snapshot-shown.txt") == "Notes: Ideas")

        let ui = try app.ui()
        let order = ["budget", "trip", "ideas", "groceries"]
        let selected = (ui["selectedIndices"] as? [Int] ?? []).map { order[$0] }
        #expect(Set(selected) == ["ideas", "budget"])  // R11: by model id, not by row
        #expect((ui["firstVisibleIndex"] as? Int).map { order[$0] } == "ideas")
        #expect(ui["editorText"] as? String == "Ideas\n- ünïcode ✓")
        #expect(ui["cursor"] as? Int == 9)
        #expect(ui["editorFocused"] as? Bool == true)
        #expect(ui["editorNoteID"] as? String == "ideas")
        #expect(ui["settingsOpen"] as? Bool == true)  // R4, R8: the sheet was recreated and re-presented
        #expect(ui["settingsTab"] as? String == "fonts")
        #expect(ui["fontSize"] as? Double == 17.5)
        #expect(ui["splitDivider"] as? Double == 0.4)
        #expect(ui["windowSize"] as? [Double] == [1280, 720])
        #expect(ui["recentNoteIDs"] as? [String] == ["ideas", "trip"])
        #expect(ui["searchQuery"] as? String == "")  // R2: the toolbar's subtree is excluded
    }

    @Test("R12: a private note is redacted from the snapshot, and the next launch ignores it")
    func privateNote() throws {
        let plugins = try PluginFixture(["ExampleNotesPlugin"])
        let fixture = try EngineFixture()
        let app = try NotesApp(in: fixture.directory)
        try app.write(#"{"editorText":"!private bank pin","editorNoteID":"ideas"}"#, to: "ui.json")
        let plugin = try plugins.plugin("org.example.Notes")
        _ = fixture.engine.preserve(try plugin.makeSession(options: app.options, logger: fixture.log.logger()))
        let archive = try fixture.store.read(try AppID("org.example.Notes")).archive
        #expect(archive.ignoresSnapshot)
        #expect(archive.snapshot?.data == Array("Notes: (private note hidden)".utf8))
        let restored = fixture.engine.restore(try plugin.makeSession(options: app.options, logger: fixture.log.logger()))
        #expect(restored.snapshot == .ignored)
        #expect(app.read("snapshot-shown.txt") == nil)
    }

    @Test("R8, R9: the C example plugin round-trips through the same engine")
    func counterRoundTrip() throws {
        let plugins = try PluginFixture(["ExampleCounterPlugin"])
        let fixture = try EngineFixture()
        let live = fixture.directory.path.appending("counter-state")
        try "title=Laps ✓\ngeometry=10,20,300,200\ncount=42\nstep=2\n".write(toFile: live.string, atomically: true, encoding: .utf8)
        let plugin = try plugins.plugin("org.example.Counter")
        #expect(plugin.displayName == "Counter (C example)")

        // One long-lived instance, as in the daemon, saves twice: the second
        // save sees what changed in between.
        let running = try plugin.makeSession(options: ["live-state": live.string], logger: fixture.log.logger())
        _ = fixture.engine.preserve(running)
        let state = "title=Laps ✓\ngeometry=10,20,300,200\ncount=57\nstep=2\n"
        try state.write(toFile: live.string, atomically: true, encoding: .utf8)
        let saved = fixture.engine.preserve(running)
        #expect(saved.outcome == .saved(generation: 2))
        #expect(saved.savedPaths.map(\.description) == ["Main", "Main/Counter"])
        #expect(saved.hasSnapshot)
        try FileManager.default.removeItem(atPath: live.string)

        let restored = fixture.engine.restore(try plugin.makeSession(options: ["live-state": live.string], logger: fixture.log.logger()))
        #expect(restored.outcome == .restored)
        #expect(restored.restoredPaths.map(\.description) == ["Main", "Main/Counter"])
        #expect(try String(contentsOfFile: live.string, encoding: .utf8) == state)
    }

    @Test("A plugin that cannot start reports why, and nothing is written")
    func pluginStartFailure() throws {
        let plugins = try PluginFixture(["ExampleNotesPlugin"])
        let plugin = try plugins.plugin("org.example.Notes")
        let fixture = try EngineFixture()
        #expect {
            _ = try plugin.makeSession(options: [:], logger: fixture.log.logger())
        } throws: { error in
            (error as? PluginCallError)?.description.contains("live-dir") == true
        }
    }
}
