import Logging
import RestoredArchive
@testable import RestoredDaemon
import RestoredEngine
import RestoredPluginHosting
import Synchronization
import SystemPackage
import Testing

/// The registry's own bookkeeping, without plugin hosts.
@Suite struct AppRegistryTests {
    /// Where the caller's stack is: the address of a local of this function.
    @inline(never) static func stackAddress() -> UInt {
        var local = 0
        return withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
    }

    /// Every save and restore of every app reaches the handler; the handler
    /// must be called at the same stack depth at the ten-thousandth activity as at
    /// the first (a closure kept as a `Mutex`'s own value grew one thunk
    /// deeper per call, until the stack of a long-running daemon overflowed).
    @Test func theActivityHandlerIsCalledAtTheSameDepthEveryTime() throws {
        let registry = AppRegistry(
            loader: PluginLoader(directories: []), options: { [:] },
            hostConfiguration: PluginHost.Configuration(executable: "/nonexistent", environment: [:]),
            logger: Logger(label: "test")
        )
        let depths = Mutex<[UInt]>([])
        registry.onActivity { _, _ in
            let depth = Self.stackAddress()
            depths.withLock { $0.append(depth) }
        }
        let appID = try AppID("org.example.Depth")
        let activity = AppActivity(.save(.saved), trigger: .autosave)
        for _ in 0..<10_000 { registry.report(activity, of: appID) }
        let recorded = depths.withLock { $0 }
        #expect(recorded.count == 10_000)
        #expect(recorded.first == recorded.last)
        #expect(Set(recorded).count == 1)
    }
}
