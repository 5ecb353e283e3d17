import Foundation
import PluginSupport
import RestoredDBus
import UnitLaunching
import RestoredTestSupport
import Testing

/// Every wait of a launch ends within the caller's budget, against peers
/// that never answer: libdbus's default of 25 seconds is never what bounds
/// a restore's or a suspend's walk. (The limits checked are the budgets'
/// purpose, far above what they give: no speed is measured here.)
@Suite struct LaunchBudgetTests {
    /// How long a step may take at most when its budget is 1 s: well below
    /// libdbus's 25 s default, well above any load of the machine.
    static let ceiling: Duration = .seconds(12)

    @Test("A user manager that owns its name and never answers StartTransientUnit costs a launch its budget, not libdbus's 25 s")
    func silentManager() async throws {
        let bus = try await PrivateBus.start()
        let manager = try await DBusConnection.connect(to: .address(bus.address))
        defer { manager.close() }
        let never: @Sendable (DBusMethodCall) async throws -> [DBusValue] = { _ in
            try await Task.sleep(for: .seconds(3600))
            return []
        }
        manager.export(path: UserUnitLauncher.managerPath, interfaces: [DBusInterface(UserUnitLauncher.managerInterface, methods: [
            .init("Subscribe", handler: never),
            .init("StartTransientUnit", inputs: [.init("name", "s"), .init("mode", "s"), .init("properties", "a(sv)"), .init("aux", "a(sa(sv))")], outputs: [.init("job", "o")], handler: never),
        ])])
        try await manager.requestName(UserUnitLauncher.managerName)

        let client = try await DBusConnection.connect(to: .address(bus.address))
        defer { client.close() }
        let launcher = UserUnitLauncher(connection: client, environment: ProcessInfo.processInfo.environment, budget: .seconds(1))
        let start = ContinuousClock.now
        await #expect {
            _ = try await launcher.launch(LaunchRequest(unitName: "app-restored-x@1.service", description: "x", command: ["sleep", "3600"]))
        } throws: { error in
            // The unanswered calls used the budget; the manager never started it.
            guard case .managerRefused(unit: "app-restored-x@1.service", _)? = error as? LaunchError else { return false }
            return true
        }
        #expect(ContinuousClock.now - start < Self.ceiling)
    }

    @Test("Blocking.run gives up at its deadline on work that never ends, and returns the result of work that does")
    func blockingDeadline() async {
        // Off the task pool, as a plugin host's thread calls it.
        let (never, finished, elapsed) = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let start = ContinuousClock.now
                let never = Blocking.run(until: .now + .seconds(1)) { () async -> Int in
                    try? await Task.sleep(for: .seconds(3600))
                    return 1
                }
                let elapsed = ContinuousClock.now - start
                let finished = Blocking.run(until: .now + .seconds(60)) { () async -> Int in 42 }
                continuation.resume(returning: (never, finished, elapsed))
            }
        }
        #expect(never == nil)
        #expect(elapsed < Self.ceiling)
        #expect(finished == 42)
    }
}
