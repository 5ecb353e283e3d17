import Foundation
import Logging
import RestoredArchive
import RestoredEngine
import RestoredHostProtocol
import RestoredPluginHosting
import RestoredState
import RestoredTestSupport
import Synchronization
import SystemPackage
import Testing

/// An upgrade while restored runs (issue 28): the daemon and a plugin host
/// of two versions meet at `start`, and a Swift plugin built for another
/// runtime is refused before any of its code runs. The hosts are the real
/// `restored-plugin-host`, copied with another version in its runtime record
/// where a test needs one (``RuntimeRecordStamp``).
@Suite struct VersionExchangeTests {
    /// A directory holding a plugin host executable that a test replaces as
    /// dpkg does, with the SDK runtime beside it (its RUNPATH has `$ORIGIN`).
    final class Installation {
        let directory: TemporaryTestDirectory
        var executable: String { directory.path + "/restored-plugin-host" }
        var plugin: String { directory.path + "/libTestFaultyPlugin.so" }
        let mismatches = Lines()

        init() throws {
            directory = try TemporaryTestDirectory()
            try FileManager.default.createSymbolicLink(atPath: directory.path + "/libRestorationKit.so", withDestinationPath: BuildProducts.plugin("RestorationKit"))
            try install(host: BuildProducts.executable("restored-plugin-host"))
            try replacePlugin()
        }

        /// Puts `host` in place by rename, as dpkg does.
        func install(host: String) throws {
            try ExecutableFile.copy(host, to: executable)
        }

        /// Writes `text` as the new plugin host, by rename.
        func install(script text: String) throws {
            try ExecutableFile.write(text, to: executable)
        }

        /// A new build of the plugin, by rename; of the version `version` when given.
        func replacePlugin(version: String? = nil) throws {
            let temporary = directory.path + "/.plugin.new"
            try? FileManager.default.removeItem(atPath: temporary)
            if let version {
                try RuntimeRecordStamp.copy(BuildProducts.plugin("TestFaultyPlugin"), to: temporary, recordText: RuntimeRecordStamp.recordText(version: version))
            } else {
                try FileManager.default.copyItem(atPath: BuildProducts.plugin("TestFaultyPlugin"), toPath: temporary)
            }
            chmod(temporary, 0o755)
            rename(temporary, plugin)
        }

        func host() -> PluginHost {
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            var configuration = PluginHost.Configuration(executable: FilePath(executable), environment: ProcessInfo.processInfo.environment)
            configuration.onVersionMismatch = { [mismatches] line in mismatches.lines.withLock { $0.append(line) } }
            let host = PluginHost(file: FilePath(plugin), configuration: configuration, logger: logger)
            host.options = ["fault": "none"]
            return host
        }
    }

    /// Lines told from any thread.
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
    }

    static func deadline() -> ContinuousClock.Instant { .now + .seconds(30) }

    static func isGone(_ pid: Int32) -> Bool {
        kill(pid, 0) != 0 && errno == ESRCH
    }

    @Test("The runtime record names this restored's version and toolchain, and every Swift plugin built here carries it; a C plugin has none")
    func recordsOfTheBuild() throws {
        let current = RuntimeRecord.current
        // The version the record gives is the one NEWS.md says last.
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let news = try String(contentsOf: repository.appendingPathComponent("NEWS.md"), encoding: .utf8)
        let newest = news.split(separator: "\n").first { $0.hasPrefix("## ") }?.dropFirst(3)
        #expect(current.version.map { Substring($0) } == newest)
        #expect(current.toolchain?.contains("(") == true)
        for plugin in ["ExampleHelloPlugin", "TmuxPlugin", "SessionPlugin", "ExampleMpvPlugin"] {
            #expect(try RuntimeRecord(readingNotesOf: FilePath(BuildProducts.plugin(plugin))) == current, "\(plugin)")
        }
        #expect(try RuntimeRecord(readingNotesOf: FilePath(BuildProducts.executable("restored-plugin-host"))) == current)
        #expect(try RuntimeRecord(readingNotesOf: FilePath(BuildProducts.plugin("ExampleCounterPlugin"))) == nil)
    }

    @Test("A plugin built for another Swift runtime is refused from its record before dlopen runs its code: one line, in the host too")
    func wrongRuntimeRefusedBeforeLoading() throws {
        let directory = try TemporaryTestDirectory()
        let foreign = "restored 0.1.0; toolchain 20.1.0 (https://github.com/swiftlang/llvm-project.git 0000000000)"
        // This plugin's constructor raises SIGSEGV: loading it here would end the test run.
        let crashing = directory.path + "/libTestPluginCrashOnLoad.so"
        try RuntimeRecordStamp.copy(BuildProducts.plugin("TestPluginCrashOnLoad"), to: crashing, recordText: foreign)
        let refusal = try #require(PluginLoader(directories: [], sdkRuntime: nil).loadPlugin(at: FilePath(crashing)).failure)
        #expect(refusal.reason == .wrongRuntime(found: foreign, expected: RuntimeRecord.current.text))
        #expect(refusal.code == "wrong-runtime")
        #expect(!refusal.description.contains("\n"))
        #expect(refusal.description.contains("rebuild it against this restored's SDK"))

        // Through a real plugin host, the refusal crosses the protocol whole.
        let hello = directory.path + "/libExampleHelloPlugin.so"
        try RuntimeRecordStamp.copy(BuildProducts.plugin("ExampleHelloPlugin"), to: hello, recordText: foreign)
        let host = PluginHost(
            file: FilePath(hello),
            configuration: PluginHost.Configuration(executable: FilePath(BuildProducts.executable("restored-plugin-host")), environment: ProcessInfo.processInfo.environment),
            logger: Logger(label: "test")
        )
        #expect(host.start().failure == .refused(.wrongRuntime(found: foreign, expected: RuntimeRecord.current.text)))
        #expect(host.pid == nil)
    }

    @Test("A truncated or hostile image gives no record or the whole one, never a read past its end")
    func hostileImages() throws {
        let directory = try TemporaryTestDirectory()
        let image = try Data(contentsOf: URL(fileURLWithPath: BuildProducts.plugin("ExampleHelloPlugin")))
        var found = 0
        for length in [0, 4, 63, 64, 200, 0x230, 0x240, 0x260, 0x2A0, 0x300, 4096] {
            let file = directory.path + "/cut-\(length).so"
            try image.prefix(length).write(to: URL(fileURLWithPath: file))
            let record = try RuntimeRecord(readingNotesOf: FilePath(file))
            #expect(record == nil || record == RuntimeRecord.current, "cut at \(length)")
            if record != nil { found += 1 }
        }
        #expect(try RuntimeRecord(readingNotesOf: FilePath(directory.path + "/cut-64.so")) == nil)
        #expect(try RuntimeRecord(readingNotesOf: FilePath(directory.path + "/cut-4096.so")) == RuntimeRecord.current)
        #expect(found < 11)

        // Headers that ask for more than the file holds: no notes, and no
        // allocation of what they ask (65535 entries of 65535 bytes).
        func patched(_ name: String, _ changes: [(offset: Int, bytes: [UInt8])]) throws -> FilePath {
            var bytes = [UInt8](image)
            for change in changes { bytes.replaceSubrange(change.offset ..< change.offset + change.bytes.count, with: change.bytes) }
            let file = directory.path + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            return FilePath(file)
        }
        let huge: [UInt8] = [0xFF, 0xFF]
        #expect(try RuntimeRecord(readingNotesOf: patched("entries.so", [(0x36, huge), (0x38, huge)])) == nil)
        #expect(try RuntimeRecord(readingNotesOf: patched("table.so", [(0x20, [UInt8](repeating: 0xFF, count: 8))])) == nil)
        // Every program header's offset and size past the end: each skipped.
        let table = Int(image.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0x20, as: UInt64.self) })
        let count = Int(image[0x38]) | Int(image[0x39]) << 8
        let past = [UInt8](repeating: 0x7F, count: 8)
        var segments: [(offset: Int, bytes: [UInt8])] = []
        for index in 0 ..< count {
            let entry: Int = table + index * 56
            segments.append((entry + 8, past))
            segments.append((entry + 32, past))
        }
        #expect(try RuntimeRecord(readingNotesOf: patched("segments.so", segments)) == nil)
        // Notes of 8-byte alignment (a system program's GNU property note)
        // are read as well as those of 4.
        let system = try ELFNoteReader(file: "/bin/ls").notes()
        #expect(system.contains { $0.owner == "GNU" && $0.type == 5 })
        #expect(system.contains { $0.owner == "GNU" && $0.type == 3 })
        // A note whose sizes run past its segment is where parsing stops.
        var bytes: [UInt8] = [9, 0, 0, 0, 0xFF, 0xFF, 0, 0, 1, 0, 0x54, 0x52] + Array("restored".utf8) + [0, 0, 0, 0]
        #expect(ELFNoteReader.parse(bytes, alignment: 4).isEmpty)
        bytes = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 1, 0, 0, 0]
        #expect(ELFNoteReader.parse(bytes, alignment: 4).isEmpty)
    }

    @Test("A plugin host of another restored version that speaks this protocol serves; restored is told the two versions, and nothing counts against the plugin")
    func compatibleHostOfAnotherVersion() throws {
        let installation = try Installation()
        let stamped = installation.directory.path + "/stamped-host"
        try RuntimeRecordStamp.copy(BuildProducts.executable("restored-plugin-host"), to: stamped, recordText: RuntimeRecordStamp.recordText(version: "9.9.9"))
        try installation.install(host: stamped)
        try installation.replacePlugin(version: "9.9.9")
        let host = installation.host()
        defer { host.stop() }
        _ = try host.start().get()
        guard case .saved(let result, _) = try host.save(unlessSameAs: nil, deadline: Self.deadline()).get() else {
            Issue.record("no archive")
            return
        }
        #expect(result.archive != nil)
        let lines = installation.mismatches.lines.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("is restored 9.9.9, this restored \(RestoredVersion.string)") == true)
        #expect(host.lastFault == nil)
    }

    @Test("A real plugin host refuses a start of another protocol version: exit status 76, not a crash")
    func hostRefusesAnotherProtocol() throws {
        let helper = try HelperProcess.spawn(
            executable: FilePath(BuildProducts.executable("restored-plugin-host")), plugin: FilePath(BuildProducts.plugin("TestFaultyPlugin")),
            environment: ProcessInfo.processInfo.environment
        )
        let entries = [
            StoredEntry(key: "version", value: .uint64(UInt64(HostProtocol.version) + 7)),
            StoredEntry(key: "restoredVersion", value: .string("9.9.9")),
            StoredEntry(key: "plugin", value: .string(BuildProducts.plugin("TestFaultyPlugin"))),
        ]
        try helper.channel.send(.start, entries.messageBody, blob: [], deadline: Self.deadline())
        #expect(helper.reap(within: .seconds(30)) == .exited(HostProtocol.versionMismatchStatus))
        #expect(Self.isGone(helper.pid))
    }

    /// Expects `saves` saves for `occasion` through `host` each to give an
    /// archive, from its helper of pid `first`, still the one running.
    static func expectServed(by host: PluginHost, running first: Int32, saves: Int, for occasion: SaveOccasion = .request) throws {
        for _ in 1...saves {
            guard case .saved(let result, _) = try host.save(for: occasion, unlessSameAs: nil, deadline: Self.deadline()).get() else {
                Issue.record("no archive")
                return
            }
            #expect(result.archive != nil)
            #expect(host.pid == first)
        }
    }

    @Test("Mid-upgrade, a helper whose plugin changed keeps serving when the new host cannot speak this protocol; the stop's save still has it")
    func runningHostServesThroughAnUpgrade() throws {
        let installation = try Installation()
        let host = installation.host()
        defer { host.stop() }
        _ = try host.start().get()
        let first = try #require(host.pid)
        // The upgrade: a host of a later protocol (it exits with the
        // mismatch status, as the real one does for a start it cannot
        // read) and a new build of the plugin, both renamed into place.
        try installation.install(script: "#!/bin/sh\necho 'restored-plugin-host 9.9.9 speaks protocol version 99' >&2\nexit \(HostProtocol.versionMismatchStatus)\n")
        try installation.replacePlugin()
        try Self.expectServed(by: host, running: first, saves: 4, for: .daemonStop)
        // Tried once: not again until the plugin or its host changes.
        let lines = installation.mismatches.lines.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("does not speak protocol \(HostProtocol.version)") == true)
        #expect(host.quarantineReason == nil)

        // Where no helper runs, the walk fails as a mismatch, which never quarantines.
        host.stop()
        for _ in 1...4 {
            guard case .versionMismatch = host.save(unlessSameAs: nil, deadline: Self.deadline()).failure else {
                Issue.record("not a version mismatch")
                return
            }
        }
        #expect(host.quarantineReason == nil)
        #expect(Self.isGone(first))
    }

    @Test("Mid-upgrade, a new build of a plugin that this host refuses (its runtime is the next version's) leaves the running helper serving, tried again once a file changes")
    func runningHostServesARefusedBuild() throws {
        let installation = try Installation()
        let host = installation.host()
        defer { host.stop() }
        _ = try host.start().get()
        let first = try #require(host.pid)
        try installation.replacePlugin(version: "9.9.9")
        try Self.expectServed(by: host, running: first, saves: 3)
        // The build this host can load: a new helper serves it.
        try installation.replacePlugin()
        _ = try host.save(unlessSameAs: nil, deadline: Self.deadline()).get()
        #expect(host.pid != first)
        #expect(Self.isGone(first))
    }
}
