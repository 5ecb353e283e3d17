import Foundation
import Logging
import RestoredDaemon
import RestoredDBus
import RestoredTestSupport
import Testing

/// Saving before suspend and shutdown, against python3-dbusmock's logind.
@Suite struct PowerEventCoordinatorTests {
    /// What the save did, for the test to check.
    final class SaveRecord: @unchecked Sendable {
        private let lock = NSLock()
        private var triggers: [ActivityTrigger] = []
        private var locksDuringSave: [Int] = []
        private var finished = 0

        func started(_ trigger: ActivityTrigger, locks: Int) {
            lock.withLock { triggers.append(trigger); locksDuringSave.append(locks) }
        }

        func ended() { lock.withLock { finished += 1 } }

        var saves: [ActivityTrigger] { lock.withLock { triggers } }
        var heldDuringSaves: [Int] { lock.withLock { locksDuringSave } }
        var finishedSaves: Int { lock.withLock { finished } }
    }

    /// logind's mock, a coordinator running on its events, and what it saved.
    struct Running {
        let fixture: LogindInhibitorTests.Fixture
        let record: SaveRecord
        let files: URL
        let task: Task<Void, Never>

        /// The budget is 30 s unless given: on a 2-core machine running the
        /// whole suite (plugins that spin and leak on purpose among it) a
        /// trivial save has been seen to take 6 s, and these tests are about
        /// the order of lock and save, not about logind's 5 s default.
        static func start(saveTakes duration: Duration = .zero, budget microseconds: UInt64 = 30_000_000) async throws -> Running {
            let fixture = try await LogindInhibitorTests.Fixture.start()
            try await fixture.logind.setProperty("InhibitDelayMaxUSec", .uint64(microseconds))
            let files = fixture.bus.directory.appendingPathComponent("archives")
            try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
            let record = SaveRecord()
            let probe = fixture.system
            let coordinator = PowerEventCoordinator(inhibitor: fixture.inhibitor, logger: Logger(label: "test")) { trigger, _ in
                record.started(trigger, locks: await Self.locks(seenBy: probe))
                try? Data("saved".utf8).write(to: files.appendingPathComponent("\(trigger.rawValue)-\(record.saves.count)"))
                if duration > .zero { try? await Task.sleep(for: duration) }
                record.ended()
            }
            let events = try await fixture.inhibitor.events()
            let task = Task { await coordinator.run(events) }
            let running = Running(fixture: fixture, record: record, files: files, task: task)
            try await LogindInhibitorTests.eventually { try await fixture.logind.inhibitors().count == 1 }
            return running
        }

        static func locks(seenBy connection: DBusConnection) async -> Int {
            let reply = try? await connection.call(
                destination: LogindMock.name, path: LogindMock.path, interface: LogindMock.interface, member: "ListInhibitors"
            )
            return reply?.first?.arrayValue?.count ?? -1
        }

        var logind: LogindMock { fixture.logind }
    }

    @Test("Suspend: the lock is held while idle, released once the save is on disk, and held again after resume")
    func sleepCycle() async throws {
        let running = try await Running.start()
        defer { running.task.cancel() }
        try await running.logind.emit("PrepareForSleep", signature: "b", [.boolean(true)])
        try await LogindInhibitorTests.eventually { try await running.logind.inhibitors().isEmpty }
        #expect(running.record.saves == [.sleep])
        #expect(running.record.heldDuringSaves == [1])
        #expect(running.record.finishedSaves == 1)
        #expect(FileManager.default.fileExists(atPath: running.files.appendingPathComponent("sleep-1").path))

        try await running.logind.emit("PrepareForSleep", signature: "b", [.boolean(false)])
        try await LogindInhibitorTests.eventually { try await running.logind.inhibitors().count == 1 }
        #expect(running.record.saves == [.sleep])
    }

    @Test("Shutdown: PrepareForShutdown and PrepareForShutdownWithMetadata fire one save only")
    func shutdownOnce() async throws {
        let running = try await Running.start()
        defer { running.task.cancel() }
        try await running.logind.emit("PrepareForShutdownWithMetadata", signature: "ba{sv}", [.boolean(true), .properties([("type", .string("poweroff"))])])
        try await running.logind.emit("PrepareForShutdown", signature: "b", [.boolean(true)])
        try await LogindInhibitorTests.eventually { try await running.logind.inhibitors().isEmpty }
        // Events are handled in order: once the lock is taken again after a
        // cancelled shutdown, both shutdown signals have been handled.
        try await running.logind.emit("PrepareForShutdown", signature: "b", [.boolean(false)])
        try await LogindInhibitorTests.eventually { try await running.logind.inhibitors().count == 1 }
        #expect(running.record.saves == [.shutdown])
    }

    @Test("A save slower than the deadline does not keep the lock past it")
    func deadline() async throws {
        // A 1 s budget leaves a 750 ms deadline; the save takes a minute. No
        // wall-clock limit is asserted (CI machines are noisy): the order is.
        let running = try await Running.start(saveTakes: .seconds(60), budget: 1_000_000)
        defer { running.task.cancel() }
        try await running.logind.emit("PrepareForSleep", signature: "b", [.boolean(true)])
        try await LogindInhibitorTests.eventually { try await running.logind.inhibitors().isEmpty }
        // The lock is gone while the save is still running.
        #expect(running.record.saves == [.sleep])
        #expect(running.record.finishedSaves == 0)
    }

    @Test("The margin before logind's deadline is a fifth of the budget, within 250 ms and 2 s")
    func margins() {
        #expect(PowerEventCoordinator.margin(for: .seconds(5)) == .seconds(1))
        #expect(PowerEventCoordinator.margin(for: .milliseconds(500)) == .milliseconds(250))
        #expect(PowerEventCoordinator.margin(for: .seconds(30)) == .seconds(2))
    }
}
