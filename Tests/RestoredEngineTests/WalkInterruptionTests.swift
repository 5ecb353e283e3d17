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
}
