import RestoredArchive
import RestoredEngine
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
        #expect(try fixture.store.read(Self.appID).archive.restoreAttempts == 1)
        let next = fixture.engine.restore(Self.appID) { _ in
            Issue.record("the walk ran after an unfinished attempt")
            return .failure(WalkInterruption(reason: "unexpected"))
        }
        #expect(next.outcome == .skippedAfterFailedAttempt(attempts: 1))
    }

    @Test("R15: a walk that never began (its plugin host could not start, or is quarantined) is no attempt")
    func aWalkThatNeverBeganDoesNotCount() throws {
        let fixture = try Self.fixture()
        for _ in 0..<3 {
            let report = fixture.engine.restore(Self.appID) { _ in .failure(WalkInterruption(reason: "quarantined", started: false)) }
            #expect(report.outcome == .failed("quarantined"))
            #expect(try fixture.store.read(Self.appID).archive.restoreAttempts == 0)
        }
        var walked = false
        let report = fixture.engine.restore(Self.appID) { archive in
            walked = true
            return .success(RestorationReport(appID: archive.appID, outcome: .restored))
        }
        #expect(walked)
        #expect(report.outcome == .restored)
    }

    @Test("R15: the walk gets the archive file's bytes as they are, with the attempt counted in the header alone; the file on disk holds the count during the walk and none after")
    func theWalkGetsTheFileAsItIs() throws {
        let fixture = try Self.fixture()
        let stored = try fixture.store.readEncoded(Self.appID).archive
        var during: EncodedArchive?
        let report = fixture.engine.restore(Self.appID) { archive in
            during = archive
            #expect((try? fixture.store.readEncoded(Self.appID).archive) == archive)
            return .success(RestorationReport(appID: archive.appID, outcome: .restored))
        }
        #expect(report.outcome == .restored)
        let walked = try #require(during)
        #expect(walked.restoreAttempts == 1)
        #expect(walked == stored.withRestoreAttempts(1))
        // Only the count (bytes 16-19) and the checksum (the last 4) differ.
        let differing = zip(walked.bytes, stored.bytes).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        #expect(differing.allSatisfy { (16 ..< 20).contains($0) || $0 >= stored.bytes.count - 4 }, "\(differing)")
        #expect(try fixture.store.readEncoded(Self.appID).archive == stored)
        #expect(try walked.decoded().restoreAttempts == 1)
    }

    @Test("R15, R16: a crafted count of 2^32-1 blocks the automatic restore; a forced one runs, neither traps nor wraps the count to none while it runs, and clears it when done")
    func theLargestCountSaturates() throws {
        let fixture = try EngineFixture()
        var archive = Archive(appID: Self.appID, appVersion: "1", objects: [])
        archive.restoreAttempts = .max
        try fixture.store.write(archive)
        try fixture.store.update(Self.appID) { $0.restoreAttempts = .max }
        #expect(fixture.engine.restore(Self.appID) { _ in .failure(WalkInterruption(reason: "unexpected")) }.outcome == .skippedAfterFailedAttempt(attempts: .max))
        let report = fixture.engine.restore(Self.appID, mode: .forced) { archive in
            #expect(archive.restoreAttempts == .max)
            return .success(RestorationReport(appID: archive.appID, outcome: .restored))
        }
        #expect(report.outcome == .restored)
        #expect(try fixture.store.read(Self.appID).archive.restoreAttempts == 0)
    }
}
