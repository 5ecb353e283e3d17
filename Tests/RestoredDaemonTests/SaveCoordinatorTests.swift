#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Logging
import RestoredArchive
@testable import RestoredDaemon
import RestoredEngine
import RestoredPluginHosting
import RestoredTestSupport
import SystemPackage
import Testing

/// Which apps a save walks, decided by ``SaveCoordinator`` alone
/// (``AppSaveState``), with a real plugin host serving the example Hello
/// plugin and real archives; no desktop, no bus. Each test takes well under
/// a second. R6 (a save decision), R5 (one archive per app).
@Suite struct SaveCoordinatorTests {
    /// A registry with Hello loaded, its live file (present: the app runs),
    /// and the coordinator over them.
    final class Fixture {
        let directory: TemporaryTestDirectory
        let registry: AppRegistry
        let engine: RestorationEngine
        let state = DaemonState()
        let saves: SaveCoordinator
        let host: AppHost
        let liveFile: String

        init() async throws {
            directory = try TemporaryTestDirectory()
            let plugins = directory.path + "/plugins"
            #expect(mkdir(plugins, 0o700) == 0)
            try ExecutableFile.copy(BuildProducts.plugin("ExampleHelloPlugin"), to: plugins + "/libExampleHelloPlugin.so")
            let liveFile = directory.path + "/hello-text"
            self.liveFile = liveFile
            let appID = try AppID("org.example.Hello")
            let logger = Logger(label: "test")
            registry = AppRegistry(
                loader: PluginLoader(directories: [FilePath(plugins)]), options: { [appID: ["live-file": liveFile]] },
                hostConfiguration: PluginHost.Configuration(
                    executable: FilePath(BuildProducts.executable("restored-plugin-host")), environment: ProcessInfo.processInfo.environment
                ),
                logger: logger
            )
            let loaded = await registry.reload()
            engine = RestorationEngine(store: ArchiveStore(directory: FilePath(directory.path + "/state")), logger: logger)
            // The desktop's end gets the walk's time, not its 5 s: the
            // transitions are under test, and every suite at once on two
            // cores can hold a first save up for longer.
            saves = SaveCoordinator(registry: registry, engine: engine, state: state, walkTimeout: .seconds(60), logger: logger, desktopEndBudget: .seconds(60))
            host = try #require(registry.host(for: appID), "Hello not loaded: \(loaded), \(registry.refusals)")
            state.phase = .running
        }

        deinit { registry.stopAll() }

        /// What Hello's app shows now.
        func show(_ text: String) throws {
            try text.write(toFile: liveFile, atomically: true, encoding: .utf8)
        }

        /// The generation of Hello's newest archive, nil without one.
        func archivedGeneration() -> UInt64? {
            (try? engine.store.summary(of: host.appID))?.seal.generation
        }

        func save(_ trigger: ActivityTrigger = .request) async -> PreservationReport.Outcome? {
            await saves.save([host], trigger: trigger, deadline: .now + .seconds(60)).first?.outcome
        }
    }

    /// restored started with no desktop: an app that needs one is not
    /// walked by any save, which says why and keeps the archive; autosave
    /// records nothing. Its app is running: a walk would have written it.
    @Test func anAppWaitingForADesktopIsNotWalked() async throws {
        let fixture = try await Fixture()
        try fixture.show("first")
        fixture.saves.awaitDesktop([fixture.host])
        #expect(fixture.saves.state(of: fixture.host.appID) == .awaitingDesktop)
        #expect(await fixture.save() == .kept(AppSaveState.awaitingDesktop.keptReason))
        #expect(fixture.host.lastActivity?.outcome == .save(.kept))
        #expect(fixture.host.lastActivity?.detail == AppSaveState.awaitingDesktop.keptReason)
        await fixture.saves.autosave()
        #expect(fixture.archivedGeneration() == nil)
        #expect(fixture.host.saveInProgress == nil)
    }

    /// A desktop's start hands back exactly the apps that waited for it (to
    /// be restored), and they are walked again from then on; an app that
    /// was live is not restored again.
    @Test func aDesktopsStartRestoresOnlyTheAppsThatWaited() async throws {
        let fixture = try await Fixture()
        try fixture.show("first")
        #expect(fixture.saves.waitingForDesktop([fixture.host]).isEmpty)
        fixture.saves.awaitDesktop([fixture.host])
        let waiting = fixture.saves.waitingForDesktop([fixture.host])
        #expect(waiting.map(\.appID) == [fixture.host.appID])
        fixture.saves.desktopStarted(waiting)
        #expect(fixture.saves.state(of: fixture.host.appID) == .live)
        guard case .saved = await fixture.save() else {
            Issue.record("a live app was not saved: \(String(describing: fixture.host.lastActivity))")
            return
        }
        #expect(fixture.archivedGeneration() != nil)
    }

    /// The desktop ended with no word before: its app is saved for that end
    /// (while it still runs), then kept: a later save and autosave, with
    /// the app gone, neither walk nor discard it; the next desktop restores it.
    @Test func aDesktopsEndSavesItsAppsThenKeepsThem() async throws {
        let fixture = try await Fixture()
        try fixture.show("at the end")
        let ending = fixture.saves.desktopEnding([fixture.host])
        #expect(fixture.saves.state(of: fixture.host.appID) == .endingWithDesktop)
        // An autosave as the desktop ends walks nothing.
        await fixture.saves.autosave()
        #expect(fixture.archivedGeneration() == nil)
        await fixture.saves.desktopEnded(ending, reason: "its display went", savedAtEnding: false)
        guard fixture.host.lastActivity?.outcome == .save(.saved), fixture.host.lastActivity?.trigger == .logout else {
            Issue.record("not saved for the desktop's end: \(String(describing: fixture.host.lastActivity))")
            return
        }
        let saved = try #require(fixture.archivedGeneration())
        #expect(fixture.saves.state(of: fixture.host.appID) == .keptUntilNextDesktop)
        #expect(unlink(fixture.liveFile) == 0)
        #expect(await fixture.save(.sleep) == .kept(AppSaveState.keptUntilNextDesktop.keptReason))
        await fixture.saves.autosave()
        #expect(fixture.archivedGeneration() == saved)
        #expect(fixture.saves.waitingForDesktop([fixture.host]).map(\.appID) == [fixture.host.appID])
    }

    /// The desktop said it ends and everything was saved then: its end
    /// saves nothing more (the apps are gone by now) and keeps them.
    @Test func aDesktopEndedAfterItsWordSavesNothingMore() async throws {
        let fixture = try await Fixture()
        try fixture.show("before the word")
        await fixture.saves.saveForSessionEnd(source: "a test's word", budget: .seconds(60))
        let saved = try #require(fixture.archivedGeneration())
        #expect(unlink(fixture.liveFile) == 0)
        await fixture.saves.desktopEnded(fixture.saves.desktopEnding([fixture.host]), reason: "its display went", savedAtEnding: true)
        #expect(fixture.archivedGeneration() == saved)
        #expect(fixture.saves.state(of: fixture.host.appID) == .keptUntilNextDesktop)
    }

    /// An app that waits for the first desktop is not one that ends with a
    /// desktop: a desktop's end (say, of a display restored never saw
    /// start) neither walks it nor changes why it waits.
    @Test func aDesktopsEndLeavesAnAppWaitingForTheFirst() async throws {
        let fixture = try await Fixture()
        try fixture.show("never seen")
        fixture.saves.awaitDesktop([fixture.host])
        let ending = fixture.saves.desktopEnding([fixture.host])
        #expect(ending.isEmpty)
        await fixture.saves.desktopEnded(ending, reason: "its display went", savedAtEnding: false)
        #expect(fixture.archivedGeneration() == nil)
        #expect(fixture.saves.state(of: fixture.host.appID) == .awaitingDesktop)
    }

    /// Idle means no round under way, nothing queued and the daemon
    /// running; the upgrade's restart waits for it.
    @Test func idleOnlyBetweenSaves() async throws {
        let fixture = try await Fixture()
        #expect(fixture.saves.isIdle)
        fixture.state.phase = .stopping
        #expect(!fixture.saves.isIdle)
        fixture.state.phase = .running
        fixture.state.beginSave()
        #expect(!fixture.saves.isIdle)
        fixture.state.endSave()
        #expect(fixture.saves.isIdle)
    }
}
