import Foundation
import RestoredArchive
import RestoredDBus
import RestoredTestSupport
import SystemPackage
import Testing

/// The admin API's views and guards against a running `restored`: ListApps,
/// Status after saves and restores, Busy, ReloadPlugins.
@Suite struct DaemonAdminTests {
    typealias Environment = DaemonIntegrationTests.Environment

    @Test("ListApps and Status: login restore results, saves, archives without a plugin, unusable archives")
    func listApps() async throws {
        let environment = try await Environment.make()
        let store = ArchiveStore(directory: FilePath(environment.state))
        // An app whose plugin is not installed, and one whose archive is garbage.
        _ = try store.write(Archive(appID: try AppID("org.example.Orphaned"), timestamp: 1_700_000_000_000_000_000))
        let broken = environment.state + "/org.example.Broken"
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(FileManager.default.createFile(atPath: broken + "/archive", contents: Data("not an archive".utf8), attributes: [.posixPermissions: 0o600]))

        let daemon = try environment.startDaemon(log: "restored-1.log", arguments: ["--autosave-interval", "0"])
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        defer { admin.close() }

        var apps = try await admin.apps()
        #expect(Set(apps.keys) == ["org.example.Notes", "org.example.Orphaned", "org.example.Broken"])
        let notes = try #require(apps["org.example.Notes"])
        #expect(notes["Plugin"]?.stringValue?.hasSuffix("/libExampleNotesPlugin.so") == true)
        #expect(notes["HasArchive"] == .boolean(false))
        #expect(notes["LastAction"] == .string("restore"))
        #expect(notes["LastTrigger"] == .string("login"))
        #expect(notes["LastOutcome"] == .string("no-archive"))
        let orphaned = try #require(apps["org.example.Orphaned"])
        #expect(orphaned["Plugin"] == .string(""))
        #expect(orphaned["HasArchive"] == .boolean(true))
        #expect(orphaned["ArchiveTime"] == .int64(1_700_000_000_000_000))
        #expect(orphaned["LastOutcome"] == .string(""))
        let unusable = try #require(apps["org.example.Broken"])
        #expect(unusable["HasArchive"] == .boolean(false))
        #expect(unusable["Problem"]?.stringValue?.isEmpty == false)

        var status = try await admin.status()
        #expect(status["State"] == .string("running"))
        #expect(status["Logind"] == .boolean(true))
        #expect(status["SessionManager"] == .boolean(false))
        #expect(status["LastSave"] == .int64(0))
        #expect(status["StateDirectory"] == .string(environment.state))

        let before = Int64(Date().timeIntervalSince1970 * 1_000_000)
        #expect(try await admin.call("Save", [.strings([])]) == [.uint32(1)])
        apps = try await admin.apps()
        let saved = try #require(apps["org.example.Notes"])
        #expect(saved["HasArchive"] == .boolean(true))
        #expect(saved["Generation"] == .uint64(1))
        #expect(saved["GenerationFile"] == .string("archive"))
        let size = try FileManager.default.attributesOfItem(atPath: environment.archive)[.size] as? Int
        #expect(saved["ArchiveSize"] == .uint64(UInt64(size ?? -1)))
        #expect((saved["ArchiveTime"]?.int64Value ?? 0) >= before)
        #expect(saved["IgnoreSnapshot"] == .boolean(false))
        #expect(saved["LastAction"] == .string("save"))
        #expect(saved["LastTrigger"] == .string("request"))
        #expect(saved["LastOutcome"] == .string("saved"))
        status = try await admin.status()
        #expect(status["LastSaveTrigger"] == .string("request"))
        #expect(status["LastSaveSaved"] == .uint32(1))
        #expect((status["LastSave"]?.int64Value ?? 0) >= before)
        #expect(await daemon.terminated() == 0)

        // The next start restores the app and says so.
        let again = try environment.startDaemon(log: "restored-2.log", arguments: ["--autosave-interval", "0"])
        _ = try await environment.waitForNotify("READY=1")
        let restored = try #require(try await admin.apps()["org.example.Notes"])
        #expect(restored["LastTrigger"] == .string("login"))
        #expect(restored["LastOutcome"] == .string("restored"))
        #expect(restored["Generation"] == .uint64(2))
        #expect(await again.terminated() == 0)
    }

    @Test("An app being saved is Busy for Save, Restore and Discard; other apps are not held up")
    func busy() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("TestScenarioPlugin")
        let scenario = "org.restored.test.Scenario"
        // The scenario app's saves wait until the test opens the gate.
        let gate = environment.bus.directory.appendingPathComponent("gate").path
        let daemon = try environment.startDaemon(
            // A walk held at the gate must outlast the checks on a loaded machine.
            log: "restored.log", arguments: ["--autosave-interval", "0", "--walk-timeout", "300", "--option", "\(scenario):save-gate=\(gate)"]
        )
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        defer { admin.close() }

        // Held until the gate opens, after the checks below (slow on a loaded machine).
        let slowSave = Task { try await admin.call("Save", [.strings([scenario])], timeout: .seconds(300)) }
        try await LogindInhibitorTests.eventually { try await admin.apps()[scenario]?["Saving"] == .string("request") }
        #expect(await admin.errorName("Save", [.strings([scenario])]) == "org.restored1.Error.Busy")
        #expect(await admin.errorName("Save", [.strings([])]) == "org.restored1.Error.Busy")
        #expect(await admin.errorName("Restore", [.strings([scenario]), .boolean(false)]) == "org.restored1.Error.Busy")
        #expect(await admin.errorName("Discard", [.string(scenario)]) == "org.restored1.Error.Busy")
        #expect(try await admin.call("Save", [.strings(["org.example.Notes"])]) == [.uint32(1)])
        #expect(FileManager.default.createFile(atPath: gate, contents: nil))
        #expect(try await slowSave.value == [.uint32(1)])
        #expect(try await admin.apps()[scenario]?["Saving"] == .string(""))
        #expect(await daemon.terminated() == 0)
    }

    @Test("ReloadPlugins loads new plugins, refuses bad ones, drops removed ones and keeps their archives")
    func reloadPlugins() async throws {
        let environment = try await Environment.make()
        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0"])
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        defer { admin.close() }
        _ = try await admin.call("Save", [.strings([])])
        let changes = try await admin.connection.signals(matching: DBusMatchRule(
            sender: "org.restored1", path: "/org/restored1", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"
        ))
        var changed = changes.makeAsyncIterator()

        try environment.addPlugin("TestScenarioPlugin")
        try environment.addPlugin("TestPluginWrongABI")
        #expect(try await admin.call("ReloadPlugins") == [.strings(["org.restored.test.Scenario"]), .strings([]), .uint32(1)])
        let appsChange = try await changed.next()?.arguments()
        #expect(appsChange?[1].stringKeyedValue?["Apps"] == .strings(["org.example.Notes", "org.restored.test.Scenario"]))
        let plugins = try await admin.call("ListPlugins").first?.arrayValue ?? []
        #expect(plugins.count == 3)
        #expect(plugins.contains { $0.structureValue?[3].stringValue?.contains("ABI") == true })

        // Reloading again changes nothing: running plugins are kept.
        #expect(try await admin.call("ReloadPlugins") == [.strings([]), .strings([]), .uint32(1)])

        try FileManager.default.removeItem(atPath: environment.plugins + "/libExampleNotesPlugin.so")
        #expect(try await admin.call("ReloadPlugins") == [.strings([]), .strings(["org.example.Notes"]), .uint32(1)])
        #expect(await admin.errorName("Save", [.strings(["org.example.Notes"])]) == "org.restored1.Error.UnknownApp")
        let notes = try #require(try await admin.apps()["org.example.Notes"])
        #expect(notes["Plugin"] == .string(""))
        #expect(notes["HasArchive"] == .boolean(true))
        #expect(await daemon.terminated() == 0)
    }
}

extension DaemonAdminTests {
    @Test("R7: a save asked for during the login restore runs after it, never writing the state from before; a second restore is Busy")
    func saveDuringLoginRestore() async throws {
        let environment = try await Environment.make()
        try environment.addPlugin("TestScenarioPlugin")
        let scenario = "org.restored.test.Scenario"
        // A first run leaves an archive to restore.
        let first = try environment.startDaemon(log: "restored-1.log", arguments: ["--autosave-interval", "0"])
        _ = try await environment.waitForNotify("READY=1")
        #expect(await first.terminated() == 0)

        // The next login's restore of the scenario app waits for the gate.
        let gate = environment.bus.directory.appendingPathComponent("gate").path
        let daemon = try environment.startDaemon(
            // A walk held at the gate must outlast the checks on a loaded machine.
            log: "restored-2.log", arguments: ["--autosave-interval", "0", "--walk-timeout", "300", "--option", "\(scenario):restore-gate=\(gate)"]
        )
        let admin = try await environment.admin()
        defer { admin.close() }
        try await LogindInhibitorTests.eventually {
            (try? await admin.apps()[scenario]?["Restoring"]) == .boolean(true)
        }
        let activity = try await admin.connection.signals(matching: DBusMatchRule(sender: "org.restored1", interface: "org.restored1.Manager"))
        var signals = activity.compactMap { signal -> String? in
            guard let arguments = try? signal.arguments(), arguments.first?.stringValue == scenario else { return nil }
            return signal.member
        }.makeAsyncIterator()
        #expect(await admin.errorName("Restore", [.strings([scenario]), .boolean(true)]) == "org.restored1.Error.Busy", "\(environment.log("restored-2.log"))\n---\n\(environment.log("restored-1.log"))")
        let save = Task { try await admin.call("Save", [.strings([scenario])], timeout: .seconds(300)) }
        #expect(FileManager.default.createFile(atPath: gate, contents: nil))
        #expect(try await save.value == [.uint32(1)])
        #expect(await signals.next() == "AppRestored")
        #expect(await signals.next() == "AppSaved")
        _ = try await environment.waitForNotify("READY=1")
        #expect(await daemon.terminated() == 0)
    }
}
