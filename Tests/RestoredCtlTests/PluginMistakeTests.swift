import Foundation
import RestoredArchive
import RestoredState
import RestoredTestSupport
import SystemPackage
import Testing

/// A plugin author's mistakes, made on purpose by a C plugin
/// (`TestPluginMistakes`) and a Swift one (`TestScenarioPlugin`), as the
/// author and the user see them through a real restored and `restored-ctl`:
/// every partial save is a problem where they look, and never costs the
/// last complete state (R5, R13, R6's third answer, R8).
@Suite struct PluginMistakeTests {
    static let mistakes = "org.restored.test.Mistakes"

    /// The C plugin's mode for its next saves.
    static func setMode(_ mode: String, _ fixture: ControlFixture) throws {
        try mode.write(toFile: fixture.root + "/mode", atomically: true, encoding: .utf8)
    }

    /// The generation and partial flag of one of the app's archive files, nil when absent.
    static func file(_ name: String, _ fixture: ControlFixture) throws -> (generation: UInt64, partial: Bool, objects: [String])? {
        let path = fixture.state + "/\(mistakes)/\(name)"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let archive = try ArchiveCodec.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        return (archive.generation, archive.isPartial, archive.objects.map(\.path.description))
    }

    @Test("R5, R13: a C plugin's reserved key and over-budget object make partial saves: save exits 1 naming each object and why; apps, show, status and --json say partial; after two and after ten partial saves the last complete archive is still on disk and restorable; the warning is logged once per change")
    func partialSaves() async throws {
        let fixture = try await ControlFixture.make()
        try Self.setMode("complete", fixture)
        let daemon = try await fixture.startDaemon(plugins: ["TestPluginMistakes"], options: ["\(Self.mistakes):mode-file=\(fixture.root)/mode"])

        // A complete save: quiet, one file.
        let first = try await fixture.ctl("save", Self.mistakes)
        #expect(first.status == 0 && first.error.isEmpty, "\(first.error)")
        let complete = ["Window", "Window/Editor", "Window/Sidebar", "Window/Inspector", "Window/Panel"]
        #expect(try Self.file("archive", fixture)?.objects == complete)
        #expect(try Self.file("archive.complete", fixture) == nil)

        // A reserved key: the save is written without the editor, and says so.
        try Self.setMode("reserved-key", fixture)
        let partial = try await fixture.ctl("save", Self.mistakes)
        #expect(partial.status == 1)
        #expect(partial.error.hasPrefix("restored-ctl: not saved completely: org.restored.test.Mistakes (saved partially, left out: Window/Editor: encoding failed: key \"restored.cursor\" uses the reserved prefix \"restored.\" (R5); choose another key; it and its subtree are not saved;"), "\(partial.error)")
        #expect(partial.error.contains("its last complete archive (generation 1) is kept: restored-ctl restore --last-complete org.restored.test.Mistakes"), "\(partial.error)")

        let apps = try await fixture.ctl("apps")
        #expect(apps.status == 0)
        #expect(apps.output.contains("partial (request): 1 object left out"), "\(apps.output)")
        #expect(apps.output.contains("org.restored.test.Mistakes: Window/Editor: left out by its last save: encoding failed: key \"restored.cursor\""), "\(apps.output)")
        #expect(apps.output.contains("org.restored.test.Mistakes: its archive is partial; the last complete one (generation 1) is kept: restored-ctl restore --last-complete org.restored.test.Mistakes"), "\(apps.output)")
        let appsJSON = try OfflineCommandTests.parse(try await fixture.ctl("apps", "--json")) as? [[String: Any]]
        let record = try #require(appsJSON?.first { $0["app"] as? String == Self.mistakes })
        #expect(record["partial"] as? Bool == true)
        #expect((record["lastComplete"] as? [String: Any])?["generation"] as? Int == 1)
        let last = try #require(record["last"] as? [String: Any])
        #expect(last["outcome"] as? String == "partial")
        let objects = try #require(last["objects"] as? [[String: Any]])
        #expect(objects.map { $0["path"] as? String } == ["Window/Editor"])
        #expect((objects.first?["reason"] as? String)?.contains("reserved prefix") == true)

        let show = try await fixture.ctl("show", Self.mistakes)
        #expect(show.status == 0)
        #expect(show.output.contains("partial: this save left 1 object(s) out; the last complete archive (generation 1) is kept"), "\(show.output)")
        #expect(show.output.contains("  Window/Editor: encoding failed: key \"restored.cursor\""), "\(show.output)")
        let showJSON = try OfflineCommandTests.parse(try await fixture.ctl("show", Self.mistakes, "--json")) as? [String: Any]
        #expect(showJSON?["partial"] as? Bool == true)
        #expect(showJSON?["lastCompleteGeneration"] as? Int == 1)
        #expect((showJSON?["leftOut"] as? [[String: Any]])?.first?["path"] as? String == "Window/Editor")

        let status = try await fixture.ctl("status", "--json")
        let problems = (try OfflineCommandTests.parse(status) as? [String: Any])?["problems"] as? [String] ?? []
        #expect(problems.contains { $0.hasPrefix("org.restored.test.Mistakes: save partial: generation 2") && $0.contains("left out: Window/Editor") }, "\(problems)")

        // Two partial saves in a row: the complete archive stays, pinned.
        #expect(try await fixture.ctl("save", Self.mistakes).status == 1)
        #expect(try Self.file("archive", fixture).map { [$0.generation: $0.partial] } == [3: true])
        #expect(try Self.file("archive.previous", fixture).map { [$0.generation: $0.partial] } == [2: true])
        #expect(try Self.file("archive.complete", fixture)?.generation == 1)
        #expect(try Self.file("archive.complete", fixture)?.objects == complete)

        // Ten partial saves in a row, another mistake from the third on.
        try Self.setMode("over-budget", fixture)
        for _ in 3...10 {
            let over = try await fixture.ctl("save", Self.mistakes)
            #expect(over.status == 1)
            #expect(over.error.contains("Window/Sidebar: encoding \"thumbnails\" passes the object budget of 1048576 bytes (R13)"), "\(over.error)")
        }
        #expect(try Self.file("archive", fixture).map { [$0.generation: $0.partial] } == [11: true])
        #expect(try Self.file("archive.previous", fixture).map { [$0.generation: $0.partial] } == [10: true])
        let pinned = try #require(try Self.file("archive.complete", fixture))
        #expect(pinned.generation == 1 && !pinned.partial && pinned.objects == complete)
        let verify = try await fixture.ctl("verify", Self.mistakes)
        #expect(verify.status == 0)
        #expect(verify.output.contains("org.restored.test.Mistakes: the last complete archive, kept beside partial saves (archive.complete): ok (generation 1"), "\(verify.output)")
        #expect(verify.output.contains("org.restored.test.Mistakes: intact, but partial: its last save left objects out (restored-ctl show org.restored.test.Mistakes names them)"), "\(verify.output)")

        // Said once per change, not at every save: two warnings for ten partial saves.
        let log = try String(contentsOfFile: fixture.root + "/restored.log", encoding: .utf8)
        #expect(log.split(separator: "\n").filter { $0.hasPrefix("<4>saved org.restored.test.Mistakes partially (") && $0.contains("); left out: ") }.count == 2, "\(log)")
        #expect(log.components(separatedBy: "leaving out the same 1 object(s) as before").count - 1 == 8, "\(log)")

        // The last complete archive restores; what a restore leaves out is named with why.
        let back = try await fixture.ctl("restore", "--last-complete", Self.mistakes)
        #expect(back.status == 0, "\(back.error)")
        #expect(back.error.contains("org.restored.test.Mistakes: Window/Inspector: not restored: no object for this path: it has no restoration class, the delegate gave none, and none is registered at this path"), "\(back.error)")
        #expect(back.error.contains("org.restored.test.Mistakes: Window/Panel: not restored: its restoration class PanelClass returned no object"), "\(back.error)")
        let restoredApps = try await fixture.ctl("apps")
        #expect(restoredApps.output.contains("org.restored.test.Mistakes: Window/Inspector: not restored by its last restore: no object for this path"), "\(restoredApps.output)")
        let restoredShow = try await fixture.ctl("show", Self.mistakes)
        #expect(restoredShow.output.contains("not restored by the last restore (2)"), "\(restoredShow.output)")
        let restoreLog = try String(contentsOfFile: fixture.root + "/restored.log", encoding: .utf8)
        #expect(restoreLog.contains("org.restored.test.Mistakes: not restored: Window/Panel: its restoration class PanelClass returned no object"), "\(restoreLog)")

        // A complete save replaces the pinned archive: nothing partial is left.
        try Self.setMode("complete", fixture)
        #expect(try await fixture.ctl("save", Self.mistakes).status == 0)
        #expect(try Self.file("archive", fixture).map { [$0.generation: $0.partial] } == [12: false])
        #expect(try Self.file("archive.complete", fixture) == nil)
        let none = try await fixture.ctl("restore", "--last-complete", Self.mistakes)
        #expect(none.status == 1)
        #expect(none.error == "restored-ctl: org.restored.test.Mistakes keeps no last complete archive (one is kept only while its newest saves are partial); restored-ctl restore org.restored.test.Mistakes reads its newest archive (known apps: restored-ctl apps)\n")
        // Nothing ran: the last result is still the complete save.
        let after = (try OfflineCommandTests.parse(try await fixture.ctl("apps", "--json")) as? [[String: Any]])?.first { $0["app"] as? String == Self.mistakes }
        #expect((after?["last"] as? [String: Any])?["outcome"] as? String == "saved")
        let clean = (try OfflineCommandTests.parse(try await fixture.ctl("status", "--json")) as? [String: Any])?["problems"] as? [String] ?? []
        #expect(!clean.contains { $0.contains(Self.mistakes) }, "\(clean)")
        #expect(await daemon.stop() == 0)
    }

    @Test("R6's third answer: keep what you have writes nothing, keeps both generations, warns of nothing, and apps says kept; a decline in a live session still discards")
    func keep() async throws {
        let fixture = try await ControlFixture.make()
        try Self.setMode("complete", fixture)
        let daemon = try await fixture.startDaemon(plugins: ["TestPluginMistakes"], options: ["\(Self.mistakes):mode-file=\(fixture.root)/mode"])
        #expect(try await fixture.ctl("save", Self.mistakes).status == 0)
        #expect(try await fixture.ctl("save", Self.mistakes).status == 0)

        try Self.setMode("keep", fixture)
        let kept = try await fixture.ctl("save", Self.mistakes)
        #expect(kept.status == 0)
        #expect(kept.error == "restored-ctl: org.restored.test.Mistakes: its plugin has nothing new to say now and keeps the last archive\n", "\(kept.error)")
        #expect(try Self.file("archive", fixture)?.generation == 2)
        #expect(try Self.file("archive.previous", fixture)?.generation == 1)
        let apps = try await fixture.ctl("apps")
        #expect(apps.output.contains("kept (request)"), "\(apps.output)")
        let problems = (try OfflineCommandTests.parse(try await fixture.ctl("status", "--json")) as? [String: Any])?["problems"] as? [String] ?? []
        #expect(!problems.contains { $0.contains(Self.mistakes) }, "\(problems)")
        let log = try String(contentsOfFile: fixture.root + "/restored.log", encoding: .utf8)
        #expect(!log.split(separator: "\n").contains { $0.hasPrefix("<4>") && $0.contains(Self.mistakes) }, "\(log)")

        // A refusal the plugin ignores is no less a loss: the object is kept without the value.
        try Self.setMode("ignore-refusal", fixture)
        let ignored = try await fixture.ctl("save", Self.mistakes)
        #expect(ignored.status == 1)
        #expect(ignored.error.contains("left out: Window/Editor: a value was refused and is not saved: key \"restored.cursor\" uses the reserved prefix \"restored.\" (R5); choose another key; the rest of the object is saved"), "\(ignored.error)")
        #expect(try Self.file("archive", fixture)?.objects.contains("Window/Editor") == true)
        #expect(try Self.file("archive.complete", fixture)?.generation == 2)

        try Self.setMode("decline", fixture)
        #expect(try await fixture.ctl("save", Self.mistakes).status == 0)
        #expect(!FileManager.default.fileExists(atPath: fixture.state + "/\(Self.mistakes)"))
        #expect(await daemon.stop() == 0)
    }

    @Test("A Swift plugin's reserved key (R5) and a reference to an object without identifier (R14) are named by their key; the save is partial")
    func swiftMistakes() async throws {
        let fixture = try await ControlFixture.make()
        let daemon = try await fixture.startDaemon(
            plugins: ["TestScenarioPlugin"],
            options: ["org.restored.test.Scenario:reserved-key=true", "org.restored.test.Scenario:reference-anonymous=true"]
        )
        let save = try await fixture.ctl("save", "org.restored.test.Scenario")
        #expect(save.status == 1)
        #expect(save.error.contains("Root/Panel: encoding failed: encode_object failed: key \"restored.className\" uses the reserved prefix \"restored.\"; choose another key"), "\(save.error)")
        #expect(save.error.contains("Root/Twins/Twin: another object already has this path"), "\(save.error)")
        #expect(save.error.contains("Root/Stack: encoding failed: the object referenced under \"anonymous\" is unknown or has no restoration identifier (R14); give it one"), "\(save.error)")
        #expect(await daemon.stop() == 0)
    }
}
