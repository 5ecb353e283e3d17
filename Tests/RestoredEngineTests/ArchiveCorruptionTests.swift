import Foundation
import RestoredArchive
import RestoredEngine
import SystemPackage
import Testing

/// Real archives written by the notes plugin, damaged on disk.
@Suite struct ArchiveCorruptionTests {
    /// Two generations of the notes app's archive, and their files.
    struct TwoGenerations {
        let fixture: EngineFixture
        let appID = try! AppID("org.example.Notes")
        let first: Archive
        let second: Archive
        let currentBytes: [UInt8]

        init() throws {
            let plugins = try PluginFixture(["ExampleNotesPlugin"])
            fixture = try EngineFixture()
            let app = try RoundTripTests.NotesApp(in: fixture.directory)
            let plugin = try plugins.plugin("org.example.Notes")
            try app.write(RoundTripTests.liveUI, to: "ui.json")
            _ = fixture.engine.preserve(try plugin.makeSession(options: app.options, logger: fixture.log.logger()))
            first = try fixture.store.read(appID).archive
            try app.write(#"{"editorText":"second generation","selectedIndices":[0]}"#, to: "ui.json")
            _ = fixture.engine.preserve(try plugin.makeSession(options: app.options, logger: fixture.log.logger()))
            second = try fixture.store.read(appID).archive
            currentBytes = try Array(Data(contentsOf: URL(fileURLWithPath: fixture.store.file(for: appID, generation: .current).string)))
        }

        func writeCurrent(_ bytes: [UInt8]) throws {
            let file = fixture.store.file(for: appID, generation: .current)
            try Data(bytes).write(to: URL(fileURLWithPath: file.string))
        }

        /// Restores into a fresh notes app; the directory holds its live files.
        func restoreIntoFreshApp() throws -> (RestorationReport, RoundTripTests.NotesApp, TemporaryDirectory) {
            let plugins = try PluginFixture(["ExampleNotesPlugin"])
            let liveDirectory = try TemporaryDirectory()
            let notes = try RoundTripTests.NotesApp(in: liveDirectory)
            let session = try plugins.plugin("org.example.Notes").makeSession(options: notes.options, logger: fixture.log.logger())
            return (fixture.engine.restore(session), notes, liveDirectory)
        }

        /// Reading after damage gives the previous generation intact, or a clear error: never a wrong tree.
        func expectPreviousOrError(_ what: String) {
            do {
                let reading = try fixture.store.read(appID)
                #expect(reading.source == .previous, "\(what): damaged file read as current")
                #expect(reading.archive == first, "\(what): wrong tree")
                #expect(!reading.problems.isEmpty)
            } catch {
                Issue.record("\(what): previous generation not used: \(error)")
            }
        }
    }

    @Test("R16: the current archive truncated at every byte offset falls back to the previous generation")
    func truncation() throws {
        let generations = try TwoGenerations()
        #expect(generations.second.generation == 2)
        #expect(generations.first.generation == 1)
        for length in 0..<generations.currentBytes.count {
            try generations.writeCurrent(Array(generations.currentBytes.prefix(length)))
            generations.expectPreviousOrError("truncated to \(length)")
        }
    }

    @Test("R16: every single bit flipped in the current archive is caught")
    func bitFlips() throws {
        let generations = try TwoGenerations()
        var bytes = generations.currentBytes
        for index in bytes.indices {
            for bit in 0..<8 {
                bytes[index] ^= 1 << bit
                try generations.writeCurrent(bytes)
                generations.expectPreviousOrError("bit \(bit) of byte \(index)")
                bytes[index] ^= 1 << bit
            }
        }
    }

    @Test("R7, R16: with both generations damaged the app has no usable archive, and restoring says so")
    func bothDamaged() throws {
        let generations = try TwoGenerations()
        try generations.writeCurrent(Array(generations.currentBytes.prefix(10)))
        let previous = generations.fixture.store.file(for: generations.appID, generation: .previous)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: previous.string))
        #expect {
            try generations.fixture.store.read(generations.appID)
        } throws: { error in
            guard case .noUsableArchive = error as? ArchiveStoreError else { return false }
            return "\(error)".contains("org.example.Notes")
        }

        let plugins = try PluginFixture(["ExampleNotesPlugin"])
        let notes = try generations.fixture.directory.subdirectory("other-notes")
        let session = try plugins.plugin("org.example.Notes").makeSession(options: ["live-dir": notes.string], logger: generations.fixture.log.logger())
        let report = generations.fixture.engine.restore(session)
        guard case .unusableArchive(let reason) = report.outcome else {
            Issue.record("expected unusable archive, got \(report.outcome)")
            return
        }
        #expect(reason.contains("org.example.Notes"))
        // Nothing is lost: both files are still there for inspection.
        #expect(FileManager.default.fileExists(atPath: previous.string))
    }

    @Test("R15, R16: a newest archive that could not be used (newer format) is never overwritten by a restore")
    func newerFormatKept() throws {
        let generations = try TwoGenerations()
        var newer = generations.currentBytes
        newer[8] = 2  // the format version: written by a newer restored
        try generations.writeCurrent(newer)
        let (report, _, liveDirectory) = try generations.restoreIntoFreshApp()
        defer { withExtendedLifetime(liveDirectory) {} }
        #expect(report.outcome == .restored)
        #expect(report.usedPreviousGeneration)
        let file = generations.fixture.store.file(for: generations.appID, generation: .current)
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: file.string))) == newer)
        // The generation that was read is the one restored, and no attempt
        // of it is left counted (R15).
        let previous = generations.fixture.store.file(for: generations.appID, generation: .previous)
        let stored = try ArchiveCodec.decode(Array(Data(contentsOf: URL(fileURLWithPath: previous.string))))
        #expect(stored.generation == 1)
        #expect(stored.restoreAttempts == 0)
        #expect(try generations.fixture.store.read(generations.appID).restoreAttempts == 0)
    }

    @Test("R16: restoring from the previous generation when the newest is damaged, and saying so")
    func restoreFromPrevious() throws {
        let generations = try TwoGenerations()
        try generations.writeCurrent(Array(generations.currentBytes.dropLast()))
        let (report, notes, liveDirectory) = try generations.restoreIntoFreshApp()
        defer { withExtendedLifetime(liveDirectory) {} }
        #expect(report.outcome == .restored)
        #expect(report.usedPreviousGeneration)
        #expect(report.generation == 1)
        #expect(report.issues.contains { $0.rule == "R16" })
        #expect(try notes.ui()["editorText"] as? String == "Ideas\n- ünïcode ✓")
    }
}
