import Foundation
import Glibc
import RestoredArchive
import RestoredEngine
import SystemPackage
import Testing

/// R15 when the restoration walk runs elsewhere (a plugin host) and does not finish.
@Suite struct WalkInterruptionTests {
    static let appID = try! AppID("org.example.Interrupted")

    /// An engine over a store holding one archive of the app.
    static func fixture() throws -> EngineFixture {
        let fixture = try EngineFixture()
        try fixture.store.write(Archive(appID: appID, appVersion: "1", objects: []))
        return fixture
    }

    @Test("R15: a walk that began and never finished leaves the attempt counted, and the next automatic restore is skipped")
    func anInterruptedWalkCounts() throws {
        let fixture = try Self.fixture()
        let report = fixture.engine.restore(Self.appID) { _ in .failure(WalkInterruption(reason: "its plugin host crashed")) }
        #expect(report.outcome == .failed("its plugin host crashed"))
        #expect(try fixture.store.read(Self.appID).restoreAttempts == 1)
        let next = fixture.engine.restore(Self.appID) { _ in
            Issue.record("the walk ran after an unfinished attempt")
            return .failure(WalkInterruption(reason: "unexpected"))
        }
        #expect(next.outcome == .skippedAfterFailedAttempt(attempts: 1, recordIsDamaged: false))
    }

    @Test("R15: a walk that never began (its plugin host could not start, or is quarantined) is no attempt")
    func aWalkThatNeverBeganDoesNotCount() throws {
        let fixture = try Self.fixture()
        for _ in 0..<3 {
            let report = fixture.engine.restore(Self.appID) { _ in .failure(WalkInterruption(reason: "quarantined", started: false)) }
            #expect(report.outcome == .failed("quarantined"))
            #expect(try fixture.store.read(Self.appID).restoreAttempts == 0)
        }
        try Self.expectAutomaticRestoreWalks(fixture)
    }

    @Test("R15: the walk gets the archive file's bytes as they are; the attempt is counted in the archive's record beside it during the walk, and none after; the archive file is never rewritten, and the record's file is rewritten in place")
    func theWalkGetsTheFileAsItIs() throws {
        let fixture = try Self.fixture()
        let stored = try fixture.store.readEncoded(Self.appID).archive
        let file = fixture.store.file(for: Self.appID, generation: .current)
        let record = fixture.store.appDirectory(for: Self.appID).appending(RestoreAttemptRecord.fileName)
        let inode = try Self.inode(of: file)
        var recordInode: UInt64?
        for _ in 0..<2 {
            var during: EncodedArchive?
            let report = fixture.engine.restore(Self.appID) { archive in
                during = archive
                #expect((try? fixture.store.readEncoded(Self.appID))?.restoreAttempts == 1)
                #expect((try? fixture.store.summary(of: Self.appID))?.restoreAttempts == 1)
                #expect(Self.record(at: record) == RestoreAttemptRecord(attemptsByGeneration: [stored.generation: 1]))
                if let recordInode { #expect((try? Self.inode(of: record)) == recordInode, "the record is rewritten in place") }
                recordInode = try? Self.inode(of: record)
                return .success(RestorationReport(appID: archive.appID, outcome: .restored))
            }
            #expect(report.outcome == .restored)
            #expect(try #require(during) == stored)
            #expect(try fixture.store.readEncoded(Self.appID).archive == stored)
            #expect(try Self.inode(of: file) == inode)
            #expect(Self.record(at: record) == RestoreAttemptRecord(), "the record stays, and counts nothing")
            #expect(try Self.inode(of: record) == recordInode, "the record is rewritten in place")
            #expect(try FileManager.default.attributesOfItem(atPath: record.string)[.size] as? Int == RestoreAttemptRecord.fileSize)
            #expect(try fixture.store.read(Self.appID).restoreAttempts == 0)
        }
    }

    @Test("R15: a record that is no file of its own (a second name, the build before's shorter file) is replaced, never written through; what it counted still counts")
    func aRecordThatIsNoFileOfItsOwnIsReplaced() throws {
        for kind in ["second name", "shorter file"] {
            let fixture = try Self.fixture()
            let generation = try fixture.store.read(Self.appID).archive.generation
            let record = fixture.store.appDirectory(for: Self.appID).appending(RestoreAttemptRecord.fileName)
            let elsewhere = fixture.directory.path.appending("record-elsewhere")
            let counted = RestoreAttemptRecord(attemptsByGeneration: [generation + 1: 2])
            switch kind {
            case "second name":
                try Data(counted.encoded).write(to: URL(fileURLWithPath: record.string))
                #expect(link(record.string, elsewhere.string) == 0)
            default:
                try Data(counted.encoded[0..<24]).write(to: URL(fileURLWithPath: record.string))
            }
            let before = try Self.inode(of: record)
            let report = fixture.engine.restore(Self.appID) { archive in
                #expect(Self.record(at: record) == counted.settingAttempts(1, forGeneration: generation), "\(kind)")
                if kind == "second name" {
                    #expect(Self.record(at: elsewhere) == counted, "the file's other name is never written through")
                }
                return .success(RestorationReport(appID: archive.appID, outcome: .restored))
            }
            #expect(report.outcome == .restored, "\(kind)")
            #expect(try Self.inode(of: record) != before, "\(kind): the record is a new file")
            #expect(Self.record(at: record) == counted, "\(kind): the other archive's count is kept")
            #expect(try FileManager.default.attributesOfItem(atPath: record.string)[.size] as? Int == RestoreAttemptRecord.fileSize)
            if kind == "second name" {
                #expect(Self.record(at: elsewhere) == counted, "the file's other name is unchanged")
            }
        }
    }

    @Test("R15: an attempt counts for the archive it was counted for: a newer save is restored automatically, and its older archive's count stays with that archive")
    func theCountIsTheArchives() throws {
        let fixture = try Self.fixture()
        let first = try fixture.store.read(Self.appID).archive.generation
        _ = fixture.engine.restore(Self.appID) { _ in .failure(WalkInterruption(reason: "its plugin host crashed")) }
        #expect(try fixture.store.read(Self.appID).restoreAttempts == 1)
        try fixture.store.write(Archive(appID: Self.appID, appVersion: "2", objects: []))
        #expect(try fixture.store.read(Self.appID).restoreAttempts == 0)
        // The older archive, read on its own, still has its attempt.
        #expect(try fixture.store.read(Self.appID, generation: .previous).archive.generation == first)
        #expect(try fixture.store.read(Self.appID, generation: .previous).restoreAttempts == 1)
        try Self.expectAutomaticRestoreWalks(fixture)
    }

    @Test("R15: a restore of another generation (the previous one, the last complete one) never changes the newest archive's count, whether it finishes, never begins or is interrupted")
    func eachArchiveKeepsItsCount() throws {
        let fixture = try Self.fixture()
        try fixture.store.write(Archive(appID: Self.appID, appVersion: "2", objects: []))
        _ = fixture.engine.restore(Self.appID) { _ in .failure(WalkInterruption(reason: "its plugin host crashed")) }
        let finished = fixture.engine.restore(Self.appID, mode: .forced, generation: .previous) { archive in
            .success(RestorationReport(appID: archive.appID, outcome: .restored))
        }
        #expect(finished.outcome == .restored)
        let neverBegan = fixture.engine.restore(Self.appID, mode: .forced, generation: .previous) { _ in
            .failure(WalkInterruption(reason: "quarantined", started: false))
        }
        #expect(neverBegan.outcome == .failed("quarantined"))
        #expect(try fixture.store.read(Self.appID).restoreAttempts == 1)
        #expect(try fixture.store.read(Self.appID, generation: .previous).restoreAttempts == 0)
        _ = fixture.engine.restore(Self.appID, mode: .forced, generation: .previous) { _ in .failure(WalkInterruption(reason: "its plugin host crashed")) }
        #expect(try fixture.store.read(Self.appID).restoreAttempts == 1)
        #expect(try fixture.store.read(Self.appID, generation: .previous).restoreAttempts == 1)
        let skipped = fixture.engine.restore(Self.appID) { _ in .failure(WalkInterruption(reason: "unexpected")) }
        #expect(skipped.outcome == .skippedAfterFailedAttempt(attempts: 1, recordIsDamaged: false))
    }

    @Test("R15: an archive whose header holds a count (an older build's) counts it; a forced restore interrupted counts one more, one that finishes clears both")
    func theHeadersCountStillCounts() throws {
        let fixture = try Self.fixture()
        try fixture.store.update(Self.appID) { $0.restoreAttempts = 1 }
        #expect(fixture.engine.restore(Self.appID) { _ in .failure(WalkInterruption(reason: "unexpected")) }.outcome == .skippedAfterFailedAttempt(attempts: 1, recordIsDamaged: false))
        _ = fixture.engine.restore(Self.appID, mode: .forced) { _ in .failure(WalkInterruption(reason: "its plugin host crashed")) }
        #expect(try fixture.store.read(Self.appID).restoreAttempts == 2)
        _ = fixture.engine.restore(Self.appID, mode: .forced) { _ in .failure(WalkInterruption(reason: "quarantined", started: false)) }
        #expect(try fixture.store.read(Self.appID).restoreAttempts == 2)
        let finished = fixture.engine.restore(Self.appID, mode: .forced) { archive in .success(RestorationReport(appID: archive.appID, outcome: .restored)) }
        #expect(finished.outcome == .restored)
        #expect(try fixture.store.read(Self.appID).archive.restoreAttempts == 0)
        #expect(try fixture.store.read(Self.appID).restoreAttempts == 0)
    }

    @Test("R15: a record of attempts that does not read (damaged, hand-made, a symbolic link) counts one attempt: the automatic restore is skipped, a forced one runs and writes it anew, a file of its own")
    func aDamagedRecordCountsOne() throws {
        for damage in ["garbage", "empty", "wrong checksum", "symbolic link"] {
            let fixture = try Self.fixture()
            let directory = fixture.store.appDirectory(for: Self.appID)
            let record = directory.appending(RestoreAttemptRecord.fileName)
            switch damage {
            case "garbage":
                try Data("not a record".utf8).write(to: URL(fileURLWithPath: record.string))
            case "empty":
                try Data().write(to: URL(fileURLWithPath: record.string))
            case "wrong checksum":
                // Read as a record, it would count nothing for this archive.
                var bytes = RestoreAttemptRecord(attemptsByGeneration: [99: 3]).encoded
                bytes[23] ^= 0xFF
                try Data(bytes).write(to: URL(fileURLWithPath: record.string))
            default:
                // A link to a record that, followed, would count nothing for this archive.
                let elsewhere = fixture.directory.path.appending("record-elsewhere")
                try Data(RestoreAttemptRecord(attemptsByGeneration: [99: 3]).encoded).write(to: URL(fileURLWithPath: elsewhere.string))
                try FileManager.default.createSymbolicLink(atPath: record.string, withDestinationPath: elsewhere.string)
            }
            #expect(try fixture.store.read(Self.appID).restoreAttempts == 1, "\(damage)")
            let inodeBefore = try? Self.inode(of: record)
            let skipped = fixture.engine.restore(Self.appID) { _ in .failure(WalkInterruption(reason: "unexpected")) }
            #expect(try fixture.store.read(Self.appID).restoreAttemptRecordIsDamaged, "\(damage)")
            #expect(skipped.outcome == .skippedAfterFailedAttempt(attempts: 1, recordIsDamaged: true), "\(damage)")
            let forced = fixture.engine.restore(Self.appID, mode: .forced) { archive in .success(RestorationReport(appID: archive.appID, outcome: .restored)) }
            #expect(forced.outcome == .restored, "\(damage)")
            #expect(try fixture.store.read(Self.appID).restoreAttempts == 0, "\(damage)")
            #expect(try !fixture.store.read(Self.appID).restoreAttemptRecordIsDamaged, "\(damage)")
            var status = stat()
            #expect(lstat(record.string, &status) == 0 && status.st_mode & S_IFMT == S_IFREG, "\(damage): the record is not a file of its own")
            #expect(Self.record(at: record) == RestoreAttemptRecord(), "\(damage)")
            if damage == "wrong checksum" {
                #expect(try Self.inode(of: record) == inodeBefore, "a damaged record that fills its file is rewritten in place")
            }
        }
    }

    @Test("R15: a damaged record beside a header that counts is no cause of its own (the skip says the header's count), and a forced restore that never began leaves the header's count, not the damaged record's one")
    func aDamagedRecordBesideAHeaderCount() throws {
        let fixture = try Self.fixture()
        let record = fixture.store.appDirectory(for: Self.appID).appending(RestoreAttemptRecord.fileName)
        try fixture.store.update(Self.appID) { $0.restoreAttempts = 3 }
        try Data("not a record".utf8).write(to: URL(fileURLWithPath: record.string))
        #expect(try fixture.store.read(Self.appID).restoreAttemptRecordIsDamaged)
        #expect(fixture.engine.restore(Self.appID) { _ in .failure(WalkInterruption(reason: "unexpected")) }.outcome == .skippedAfterFailedAttempt(attempts: 3, recordIsDamaged: false))

        let alone = try Self.fixture()
        let aloneRecord = alone.store.appDirectory(for: Self.appID).appending(RestoreAttemptRecord.fileName)
        try Data("not a record".utf8).write(to: URL(fileURLWithPath: aloneRecord.string))
        _ = alone.engine.restore(Self.appID, mode: .forced) { _ in .failure(WalkInterruption(reason: "quarantined", started: false)) }
        let reading = try alone.store.read(Self.appID)
        #expect(reading.restoreAttempts == 0)
        #expect(!reading.restoreAttemptRecordIsDamaged)
    }

    @Test("R15: discarding an app's archives removes its record of attempts too")
    func discardRemovesTheRecord() throws {
        let fixture = try Self.fixture()
        _ = fixture.engine.restore(Self.appID) { _ in .failure(WalkInterruption(reason: "its plugin host crashed")) }
        #expect(try fixture.store.discard(Self.appID))
        #expect(!FileManager.default.fileExists(atPath: fixture.store.appDirectory(for: Self.appID).string))
        try fixture.store.write(Archive(appID: Self.appID, appVersion: "1", objects: []))
        #expect(try fixture.store.read(Self.appID).restoreAttempts == 0)
    }

    /// Expects an automatic restore of the app to run its walk and finish.
    static func expectAutomaticRestoreWalks(_ fixture: EngineFixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var walked = false
        let report = fixture.engine.restore(appID) { archive in
            walked = true
            return .success(RestorationReport(appID: archive.appID, outcome: .restored))
        }
        #expect(walked, sourceLocation: sourceLocation)
        #expect(report.outcome == .restored, sourceLocation: sourceLocation)
    }

    /// The record of attempts in the file at `path` (a damaged one when it
    /// cannot be read).
    static func record(at path: FilePath) -> RestoreAttemptRecord {
        RestoreAttemptRecord(decoding: (try? Data(contentsOf: URL(fileURLWithPath: path.string))).map(Array.init) ?? [])
    }

    /// The inode number of `file`.
    static func inode(of file: FilePath) throws -> UInt64 {
        try #require(try FileManager.default.attributesOfItem(atPath: file.string)[.systemFileNumber] as? UInt64)
    }

    @Test("R15, R16: a crafted count of 2^32-1 blocks the automatic restore; a forced one runs, neither traps nor wraps the count to none while it runs, and clears it when done")
    func theLargestCountSaturates() throws {
        let fixture = try EngineFixture()
        var archive = Archive(appID: Self.appID, appVersion: "1", objects: [])
        archive.restoreAttempts = .max
        try fixture.store.write(archive)
        try fixture.store.update(Self.appID) { $0.restoreAttempts = .max }
        #expect(fixture.engine.restore(Self.appID) { _ in .failure(WalkInterruption(reason: "unexpected")) }.outcome == .skippedAfterFailedAttempt(attempts: .max, recordIsDamaged: false))
        let report = fixture.engine.restore(Self.appID, mode: .forced) { archive in
            #expect(archive.restoreAttempts == .max)
            return .success(RestorationReport(appID: archive.appID, outcome: .restored))
        }
        #expect(report.outcome == .restored)
        // The header's count, from a build before the record, is cleared.
        #expect(try fixture.store.read(Self.appID).archive.restoreAttempts == 0)
        #expect(try fixture.store.read(Self.appID).restoreAttempts == 0)
    }
}
