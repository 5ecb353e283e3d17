#if canImport(Glibc)
import Glibc
#endif
import Logging
import RestoredArchive
@testable import RestoredDaemon
import RestoredEngine
import RestoredPluginHosting
import RestoredTestSupport
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

    /// A plugin's first load meets a plugin host of another version (the
    /// files of an upgrade not finished): the plugin is refused for that,
    /// in one line that says what to do, not as a plugin that could not start.
    @Test func aHostOfAnotherVersionAtAPluginsFirstLoadIsNamedAsSuch() async throws {
        let directory = try TemporaryTestDirectory()
        let plugins = directory.path + "/plugins"
        #expect(mkdir(plugins, 0o700) == 0)
        try ExecutableFile.copy(BuildProducts.plugin("ExampleHelloPlugin"), to: plugins + "/libExampleHelloPlugin.so")
        // The host of a later version answers a start it cannot read as the
        // real one does: a line on standard error and status 76 (EX_PROTOCOL).
        let host = directory.path + "/restored-plugin-host"
        try ExecutableFile.write("#!/bin/sh\necho 'restored-plugin-host 9.9.9 speaks protocol version 99' >&2\nexit 76\n", to: host)
        let registry = AppRegistry(
            loader: PluginLoader(directories: [FilePath(plugins)]), options: { [:] },
            hostConfiguration: PluginHost.Configuration(executable: FilePath(host), environment: [:]),
            logger: Logger(label: "test")
        )
        defer { registry.stopAll() }
        let result = await registry.reload()
        #expect(result.added.isEmpty)
        let refusals = registry.refusals
        #expect(refusals.count == 1)
        let refusal = try #require(refusals.first)
        #expect(refusal.code == "host-version-mismatch")
        #expect(refusal.description.contains("\(host) does not speak protocol"))
        #expect(refusal.description.contains("restored's files are of two versions"))
        #expect(refusal.description.contains("systemctl --user restart restored"))
        #expect(!refusal.description.contains("\n"))
    }
}
