import Foundation
import RestoredArchive
import RestoredDBus
import RestoredTestSupport
import SystemPackage
import Testing

/// The real daemon with the faulty C test plugin beside the notes example,
/// on private buses with logind's mock: a plugin host's fault costs its own
/// app only.
@Suite struct PluginHostFaultTests {
    typealias Environment = DaemonIntegrationTests.Environment
    static let faulty = "org.restored.test.Faulty"

    static func isGone(_ pid: UInt32) -> Bool {
        kill(pid_t(pid), 0) != 0 && errno == ESRCH
    }

    @Test("A plugin host that segfaults at suspend: the other app is saved, the lock released, the daemon alive, the crash named; three failures quarantine it until its file changes")
    func crashAtSuspendAndQuarantine() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("TestFaultyPlugin")
        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0", "--option", "\(Self.faulty):fault=segfault"])
        _ = try await environment.waitForNotify("READY=1")
        try await LogindInhibitorTests.eventually { try await environment.logind.inhibitors().count == 1 }
        let admin = try await environment.admin()
        defer { admin.close() }
        let firstPid = try #require(try await admin.apps()[Self.faulty]?["PluginHostPid"]?.uint64Value)
        #expect(firstPid > 0)

        try await environment.logind.emit("PrepareForSleep", signature: "b", [.boolean(true)])
        try await LogindInhibitorTests.eventually { try await environment.logind.inhibitors().isEmpty }
        #expect(FileManager.default.fileExists(atPath: environment.archive))
        let app = try #require(try await admin.apps()[Self.faulty])
        #expect(app["LastOutcome"] == .string("failed"))
        #expect(app["LastDetail"] == .string("its plugin host crashed with SIGSEGV in encode_object"))
        #expect(app["HasArchive"] == .boolean(false))
        #expect(app["PluginHostPid"] == .uint32(0))
        #expect(Self.isGone(UInt32(firstPid)))
        #expect(environment.log("restored.log").contains("saving \(Self.faulty) failed: its plugin host crashed with SIGSEGV in encode_object"))
        try await environment.logind.emit("PrepareForSleep", signature: "b", [.boolean(false)])

        // Two more failed walks: quarantined, and restored-ctl's source says how to get out.
        #expect(try await admin.call("Save", [.strings([Self.faulty])]) == [.uint32(0)])
        #expect(try await admin.call("Save", [.strings([Self.faulty])]) == [.uint32(0)])
        let plugins = try await admin.call("ListPlugins")
        let row = try #require(plugins.first?.arrayValue?.first { $0.structureValue?.first?.stringValue?.hasSuffix("libTestFaultyPlugin.so") == true })
        let state = try #require(row.structureValue?[3].stringValue)
        #expect(state.hasPrefix("quarantined: its plugin host failed in 3 walks in a row"))
        #expect(state.contains("a changed file is tried again"))
        // restored-ctl status and plugins say so, with the way out.
        var environmentForCtl = ProcessInfo.processInfo.environment
        environmentForCtl["DBUS_SESSION_BUS_ADDRESS"] = environment.bus.address
        environmentForCtl["NO_COLOR"] = "1"
        let status = try await CompletedCommand.run(BuildProducts.executable("restored-ctl"), ["status"], environment: environmentForCtl, in: environment.bus.directory)
        #expect(status.output.contains("\(Self.faulty): quarantined: its plugin host failed in 3 walks in a row"), "\(status.output)")
        let listing = try await CompletedCommand.run(BuildProducts.executable("restored-ctl"), ["plugins"], environment: environmentForCtl, in: environment.bus.directory)
        #expect(listing.output.contains("quarantined: its plugin host failed"), "\(listing.output)")
        // A quarantined plugin's save fails at once, without a helper.
        #expect(try await admin.call("Save", [.strings([Self.faulty])]) == [.uint32(0)])
        #expect(try await admin.apps()[Self.faulty]?["PluginHostPid"] == .uint32(0))
        #expect(try await admin.apps()[Self.faulty]?["LastDetail"]?.stringValue?.contains("quarantined") == true)

        // A new build of the file lifts the quarantine.
        let link = environment.plugins + "/libTestFaultyPlugin.so"
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.copyItem(atPath: BuildProducts.plugin("TestFaultyPlugin"), toPath: link)
        let lifted = try await admin.call("ListPlugins").first?.arrayValue?.first { $0.structureValue?.first?.stringValue == link }
        #expect(lifted?.structureValue?[3].stringValue == "loaded; the file changed since: its next save starts the new build")
        #expect(try await admin.call("Save", [.strings(["org.example.Notes"])]) == [.uint32(1)])
        #expect(await daemon.terminated() == 0)
    }

    @Test("A kill -9 of a plugin host in the middle of a save leaves that app's previous archive intact")
    func killedMidSave() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("TestFaultyPlugin")
        let gate = environment.bus.directory.appendingPathComponent("gate").path
        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0", "--option", "\(Self.faulty):gate=\(gate)"])
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        defer { admin.close() }
        #expect(try await admin.call("Save", [.strings([Self.faulty])]) == [.uint32(1)])
        let store = ArchiveStore(directory: FilePath(environment.state))
        let before = try store.read(try AppID(Self.faulty)).archive

        // The next save waits in encode_object while the gate file exists.
        #expect(FileManager.default.createFile(atPath: gate, contents: nil))
        let save = Task { try await admin.call("Save", [.strings([Self.faulty])]) }
        try await LogindInhibitorTests.eventually { try await admin.apps()[Self.faulty]?["Saving"] == .string("request") }
        let pid = try #require(try await admin.apps()[Self.faulty]?["PluginHostPid"]?.uint64Value)
        #expect(kill(pid_t(pid), SIGKILL) == 0)
        #expect(try await save.value == [.uint32(0)])
        #expect(try await admin.apps()[Self.faulty]?["LastDetail"] == .string("its plugin host crashed with SIGKILL"))
        let after = try store.read(try AppID(Self.faulty))
        #expect(after.source == .current)
        #expect(after.archive == before)
        try FileManager.default.removeItem(atPath: gate)
        #expect(await daemon.terminated() == 0)
    }
}
