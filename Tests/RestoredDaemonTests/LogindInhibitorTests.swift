import Foundation
import Logging
import RestoredDaemon
import RestoredDBus
import RestoredTestSupport
import Testing

/// restored's delay lock against python3-dbusmock's logind on a private bus.
@Suite struct LogindInhibitorTests {
    static let lock = ["sleep:shutdown", "restored", "Saving the state of your open apps so they come back as you left them", "delay"]

    @Test("The delay lock shows in ListInhibitors while held; release closes every copy, once")
    func holdAndRelease() async throws {
        let fixture = try await Fixture.start()
        let (logind, inhibitor) = (fixture.logind, fixture.inhibitor)

        try await inhibitor.acquire()
        #expect(await inhibitor.isHeld)
        #expect(try await logind.inhibitors() == [Self.lock])
        try await inhibitor.acquire()  // already held: no second lock
        #expect(try await logind.inhibitors().count == 1)

        #expect(await inhibitor.release())
        #expect(await !inhibitor.release())
        // logind drops the lock once no copy of its descriptor is open.
        try await Self.eventually { try await logind.inhibitors().isEmpty }
        #expect(await !inhibitor.isHeld)
    }

    @Test("PrepareForSleep, PrepareForShutdown and PrepareForShutdownWithMetadata arrive as events")
    func events() async throws {
        let fixture = try await Fixture.start()
        let (logind, inhibitor) = (fixture.logind, fixture.inhibitor)
        let events = try await inhibitor.events()
        try await logind.emit("PrepareForSleep", signature: "b", [.boolean(true)])
        try await logind.emit("PrepareForSleep", signature: "b", [.boolean(false)])
        try await logind.emit("PrepareForShutdown", signature: "b", [.boolean(true)])
        try await logind.emit("PrepareForShutdownWithMetadata", signature: "ba{sv}", [.boolean(true), .properties([("type", .string("reboot"))])])
        var received: [LogindEvent] = []
        for await event in events {
            received.append(event)
            if received.count == 4 { break }
        }
        #expect(received == [.prepareForSleep(true), .prepareForSleep(false), .prepareForShutdown(true), .prepareForShutdown(true)])
    }

    @Test("The delay budget is InhibitDelayMaxUSec, read at run time, or logind's default")
    func delayBudget() async throws {
        let fixture = try await Fixture.start()
        let (logind, inhibitor) = (fixture.logind, fixture.inhibitor)
        #expect(await inhibitor.delayBudget() == LogindInhibitor.defaultDelayBudget)
        try await logind.setProperty("InhibitDelayMaxUSec", .uint64(2_500_000))
        #expect(await inhibitor.delayBudget() == .milliseconds(2500))
    }

    @Test("Retaking the lock after resume retries while logind says the operation is still running")
    func retakeRetries() async throws {
        let fixture = try await Fixture.start()
        try await fixture.logind.refuseInhibit(times: 2)
        try await fixture.inhibitor.acquireRetrying(attempts: 5, firstDelay: .milliseconds(10))
        #expect(await fixture.inhibitor.isHeld)
        #expect(try await fixture.logind.calls(of: "Inhibit") == 3)
        await fixture.inhibitor.release()

        // Refused more often than it may retry: the error says why.
        let stubborn = try await Fixture.start()
        try await stubborn.logind.refuseInhibit(times: 10)
        await #expect {
            try await stubborn.inhibitor.acquireRetrying(attempts: 3, firstDelay: .milliseconds(1))
        } throws: { error in
            (error as? DBusError)?.name == LogindInhibitor.operationInProgress
        }
        #expect(await !stubborn.inhibitor.isHeld)
    }

    @Test("After logind restarts, the new logind's signals arrive")
    func logindRestarts() async throws {
        let fixture = try await Fixture.start()
        let events = try await fixture.inhibitor.events()
        var iterator = events.makeAsyncIterator()
        fixture.logind.stop()
        #expect(await iterator.next() == .vanished)
        let again = try await LogindMock.start(on: fixture.bus)
        #expect(await iterator.next() == .restarted)
        try await again.emit("PrepareForSleep", signature: "b", [.boolean(true)])
        #expect(await iterator.next() == .prepareForSleep(true))
    }

    @Test("logind going away is reported")
    func logindVanishes() async throws {
        let fixture = try await Fixture.start()
        let (logind, inhibitor) = (fixture.logind, fixture.inhibitor)
        let events = try await inhibitor.events()
        logind.stop()
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() == .vanished)
    }

    /// A private system bus with logind's mock, and an inhibitor on it.
    struct Fixture {
        let bus: PrivateBus
        let logind: LogindMock
        let system: DBusConnection
        let inhibitor: LogindInhibitor

        static func start() async throws -> Fixture {
            let bus = try await PrivateBus.start()
            let logind = try await LogindMock.start(on: bus)
            let system = try await bus.connect()
            return Fixture(bus: bus, logind: logind, system: system, inhibitor: LogindInhibitor(connection: system, logger: Logger(label: "test")))
        }
    }

    /// Waits until `condition` holds; a generous limit only stops a test that
    /// would otherwise hang (it is no speed requirement: under the full
    /// suite on two cores, python3-dbusmock has been seen to answer 20 s late).
    static func eventually(within limit: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not met within \(limit)")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
