import Foundation
import Logging
import RestoredArchive
import RestoredEngine
import RestoredHostProtocol
import RestoredPluginHosting
import RestoredTestSupport
import SystemPackage
import Testing
import ProcFiles

/// The real `restored-plugin-host` with real plugins: the faulty C test
/// plugin (segfault, abort in create, endless loop, exit, unbounded leak,
/// garbage on the channel) and its well-behaved mode. Every helper a test
/// starts is checked gone by pid at the end.
@Suite struct PluginHostTests {
    /// A copy of the faulty plugin in a directory of its own (so a test can
    /// replace the file), removed at the end.
    final class Fixture {
        let directory: String
        let plugin: String

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("restored-host-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            plugin = directory + "/libTestFaultyPlugin.so"
            try replacePlugin()
        }

        deinit {
            try? FileManager.default.removeItem(atPath: directory)
        }

        /// Copies the built plugin over the fixture's file (a new build, as far as restored can tell).
        func replacePlugin() throws {
            let temporary = directory + "/.new.so"
            try? FileManager.default.removeItem(atPath: temporary)
            try FileManager.default.copyItem(atPath: BuildProducts.plugin("TestFaultyPlugin"), toPath: temporary)
            chmod(temporary, 0o755)
            rename(temporary, plugin)
        }

        func host(fault: String, options extra: [String: String] = [:], memoryLimit: UInt64 = 1 << 30) -> PluginHost {
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let configuration = PluginHost.Configuration(
                executable: FilePath(BuildProducts.executable("restored-plugin-host")),
                environment: ProcessInfo.processInfo.environment, memoryLimit: memoryLimit
            )
            let host = PluginHost(file: FilePath(plugin), configuration: configuration, logger: logger)
            host.options = ["fault": fault].merging(extra) { $1 }
            return host
        }
    }

    static func isGone(_ pid: Int32) -> Bool {
        kill(pid, 0) != 0 && errno == ESRCH
    }

    static func deadline(_ seconds: Int = 20) -> ContinuousClock.Instant { .now + .seconds(seconds) }

    @Test("A well-behaved plugin starts, saves an archive, answers unchanged for the same state, restores, and its helper exits at stop")
    func roundTrip() throws {
        let fixture = try Fixture()
        let host = fixture.host(fault: "none")
        let identity = try host.start().get()
        #expect(identity.appID.rawValue == "org.restored.test.Faulty")
        #expect(identity.abiVersion == 1)
        let pid = try #require(host.pid)

        guard case .saved(let result, let token) = try host.save(unlessSameAs: nil, deadline: Self.deadline()).get() else {
            Issue.record("no archive")
            return
        }
        let archive = try ArchiveCodec.decode(try #require(result.archive))
        #expect(archive.appID == identity.appID)
        #expect(archive.objects.map(\.path.description) == ["Main"])
        #expect(result.report.savedObjectCount == 1)

        // The plugin counts its saves, so the next state differs; the one after is asked against it.
        guard case .saved(_, let second) = try host.save(unlessSameAs: token, deadline: Self.deadline()).get() else {
            Issue.record("a changed state was not saved")
            return
        }
        #expect(second != token)

        // R7, R9: the restore runs in the helper and reports what came back.
        let report = try host.restore(archive, deadline: Self.deadline()).get()
        #expect(report.outcome == .restored)
        #expect(report.restoredObjectCount == 1)

        host.stop()
        #expect(Self.isGone(pid))
    }

    @Test("The helper holds no descriptor of restored but its channel, never gains privileges, and ignores nothing restored ignores")
    func cleanSlate() throws {
        let fixture = try Fixture()
        // A descriptor restored forgot to mark close-on-exec must not reach the helper.
        let leaked = open(fixture.plugin, O_RDONLY)
        defer { close(leaked) }
        let previous = signal(SIGTERM, SIG_IGN)
        defer { signal(SIGTERM, previous) }
        let host = fixture.host(fault: "none")
        _ = try host.start().get()
        let pid = try #require(host.pid)
        let descriptors = ProcProcess.descriptors(of: pid)
        #expect(!descriptors.isEmpty)
        #expect(descriptors[leaked] == nil)
        #expect(!descriptors.values.contains(fixture.plugin))
        #expect(ProcProcess.hasNoNewPrivileges(pid) == true)
        // SIGTERM is ignored here, not in the helper (its SigIgn mask has no bit 15).
        let ignored = try #require(ProcProcess.status("SigIgn", of: pid).flatMap { UInt64($0, radix: 16) })
        #expect(ignored & (1 << 14) == 0)
        host.stop()
        #expect(Self.isGone(pid))
    }

    @Test("A helper started from a thread that then ends lives on: its death signal follows restored, not the thread")
    func outlivesStartingThread() throws {
        let fixture = try Fixture()
        let host = fixture.host(fault: "none")
        final class Box: @unchecked Sendable { var host: PluginHost? }
        let box = Box()
        box.host = host
        var thread = pthread_t()
        let context = Unmanaged.passRetained(box).toOpaque()
        #expect(pthread_create(&thread, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            _ = box.host?.start()
            return nil
        }, context) == 0)
        #expect(pthread_join(thread, nil) == 0)
        let pid = try #require(host.pid)
        _ = try host.save(unlessSameAs: nil, deadline: Self.deadline()).get()
        #expect(host.pid == pid)
        host.stop()
    }

    @Test("A segfault in encode_object is reported with the signal and callback; the helper is gone and the next walk starts a new one")
    func segfault() throws {
        let fixture = try Fixture()
        let host = fixture.host(fault: "segfault")
        _ = try host.start().get()
        let first = try #require(host.pid)
        let fault = try #require(host.save(unlessSameAs: nil, deadline: Self.deadline()).failure)
        #expect(fault == .crashed(signal: SIGSEGV, callback: "encode_object"))
        #expect(fault.description == "its plugin host crashed with SIGSEGV in encode_object")
        #expect(Self.isGone(first))
        #expect(host.pid == nil)
        // The next walk starts a helper again (and it crashes again).
        #expect(host.save(unlessSameAs: nil, deadline: Self.deadline()).failure == .crashed(signal: SIGSEGV, callback: "encode_object"))
    }

    @Test("R15: a crash during a restore names decode_object")
    func crashDuringRestore() throws {
        let fixture = try Fixture()
        let host = fixture.host(fault: "segfault")
        let archive = Archive(appID: try AppID("org.restored.test.Faulty"), objects: [
            ArchivedObject(path: .init(identifiers: "Main"), className: "FaultyWindow", restorationClass: nil, kind: .child, state: []),
        ])
        #expect(host.restore(archive, deadline: Self.deadline()).failure == .crashed(signal: SIGSEGV, callback: "decode_object"))
    }

    @Test("An abort in create fails the first walk with SIGABRT in create")
    func abortInCreate() throws {
        let fixture = try Fixture()
        let host = fixture.host(fault: "abort-create")
        _ = try host.start().get()
        let pid = try #require(host.pid)
        #expect(host.save(unlessSameAs: nil, deadline: Self.deadline()).failure == .crashed(signal: SIGABRT, callback: "create"))
        #expect(Self.isGone(pid))
    }

    @Test("A plugin that loops forever is killed at the deadline: nothing keeps spinning")
    func hang() throws {
        let fixture = try Fixture()
        let host = fixture.host(fault: "loop")
        _ = try host.start().get()
        let pid = try #require(host.pid)
        guard case .deadlinePassed(let walk, _) = host.save(unlessSameAs: nil, deadline: .now + .seconds(1)).failure else {
            Issue.record("no deadline fault")
            return
        }
        #expect(walk == "save")
        #expect(Self.isGone(pid))
    }

    @Test("A plugin that calls exit(0) is reported as an exit")
    func exitInWalk() throws {
        let fixture = try Fixture()
        let host = fixture.host(fault: "exit")
        #expect(host.save(unlessSameAs: nil, deadline: Self.deadline()).failure == .exited(status: 0))
    }

    @Test("A plugin that leaks without bound fails at the helper's memory limit")
    func leak() throws {
        let fixture = try Fixture()
        let host = fixture.host(fault: "leak", memoryLimit: 256 << 20)
        _ = try host.start().get()
        let pid = try #require(host.pid)
        #expect(host.save(unlessSameAs: nil, deadline: Self.deadline()).failure == .crashed(signal: SIGABRT, callback: "encode_object"))
        #expect(Self.isGone(pid))
    }

    @Test("Garbage on the channel (a frame length over the limit) kills the helper; the length is never trusted")
    func garbage() throws {
        let fixture = try Fixture()
        let host = fixture.host(fault: "garbage")
        _ = try host.start().get()
        let pid = try #require(host.pid)
        guard case .protocolViolation(let what) = host.save(unlessSameAs: nil, deadline: Self.deadline()).failure else {
            Issue.record("no protocol violation")
            return
        }
        #expect(what.contains("over the limit"))
        #expect(Self.isGone(pid))
    }

    @Test("Three failed walks in a row quarantine the plugin until its file changes")
    func quarantine() throws {
        let fixture = try Fixture()
        let host = fixture.host(fault: "segfault")
        for _ in 1...3 {
            #expect(host.save(unlessSameAs: nil, deadline: Self.deadline()).failure == .crashed(signal: SIGSEGV, callback: "encode_object"))
        }
        #expect(host.quarantineReason?.contains("3 walks in a row") == true)
        guard case .quarantined = host.save(unlessSameAs: nil, deadline: Self.deadline()).failure else {
            Issue.record("not quarantined")
            return
        }
        #expect(host.pid == nil)
        // A new build of the file lifts it: the helper starts (and crashes) again.
        try fixture.replacePlugin()
        #expect(host.save(unlessSameAs: nil, deadline: Self.deadline()).failure == .crashed(signal: SIGSEGV, callback: "encode_object"))
        #expect(host.quarantineReason == nil)
    }

    @Test("A rebuilt plugin file gets a new helper at the next walk")
    func changedFileRestartsHelper() throws {
        let fixture = try Fixture()
        let host = fixture.host(fault: "none")
        _ = try host.start().get()
        let first = try #require(host.pid)
        _ = try host.save(unlessSameAs: nil, deadline: Self.deadline()).get()
        try fixture.replacePlugin()
        #expect(host.hasChangedOnDisk)
        _ = try host.save(unlessSameAs: nil, deadline: Self.deadline()).get()
        let second = try #require(host.pid)
        #expect(second != first)
        #expect(Self.isGone(first))
        #expect(!host.hasChangedOnDisk)
        host.stop()
    }
}

extension Result {
    /// The error, if it failed.
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
