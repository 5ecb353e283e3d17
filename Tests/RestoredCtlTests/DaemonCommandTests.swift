import Foundation
import RestoredArchive
import RestoredTestSupport
import SystemPackage
import Testing

/// `restored-ctl` against a real restored on private buses with logind's mock.
@Suite struct DaemonCommandTests {
    @Test("status, plugins and apps, in text (compared with Expected/) and --json")
    func views() async throws {
        let fixture = try await ControlFixture.make()
        let daemon = try await fixture.startDaemon()

        let status = try await fixture.ctl("status")
        #expect(status.status == 0, "\(status.error)")
        try ControlFixture.expectMatchesExpected(fixture.normalized(status.output), "status")
        let statusJSON = try OfflineCommandTests.parse(try await fixture.ctl("status", "--json")) as? [String: Any]
        #expect(statusJSON?["state"] as? String == "running")
        #expect(statusJSON?["lockHeld"] as? Bool == true)
        #expect(statusJSON?["logind"] as? Bool == true)
        #expect(statusJSON?["apps"] as? Int == 1)
        #expect(statusJSON?["problems"] as? [String] == [])
        #expect(statusJSON?["stateDirectory"] as? String == fixture.state)

        let plugins = try await fixture.ctl("plugins")
        #expect(plugins.status == 0)
        try ControlFixture.expectMatchesExpected(fixture.normalized(plugins.output), "plugins")
        let pluginsJSON = try OfflineCommandTests.parse(try await fixture.ctl("plugins", "--json")) as? [[String: Any]]
        #expect(pluginsJSON?.first?["app"] as? String == ControlFixture.notes)
        #expect(pluginsJSON?.first?["state"] as? String == "loaded")
        #expect(pluginsJSON?.first?["abiVersion"] as? Int == 1)

        // save is quiet; apps then shows the result.
        let save = try await fixture.ctl("save")
        #expect(save.status == 0 && save.output.isEmpty && save.error.isEmpty, "\(save.error)")
        let apps = try await fixture.ctl("apps")
        try ControlFixture.expectMatchesExpected(fixture.normalized(apps.output).replacingOccurrences(of: #"\d+(\.\d)? (B|KiB) "#, with: "<size> ", options: .regularExpression), "apps")
        let appsJSON = try OfflineCommandTests.parse(try await fixture.ctl("apps", "--json")) as? [[String: Any]]
        let last = try #require(appsJSON?.first?["last"] as? [String: Any])
        #expect(last["action"] as? String == "save")
        #expect(last["outcome"] as? String == "saved")
        #expect(last["trigger"] as? String == "request")
        #expect(appsJSON?.first?["restoreAttemptRecordDamaged"] as? Bool == false)

        // R15: ListApps says when the record of restore attempts cannot be read (it counts one).
        let record = fixture.state + "/" + ControlFixture.notes + "/archive.attempts"
        try Data("not a record".utf8).write(to: URL(fileURLWithPath: record))
        let damaged = try OfflineCommandTests.parse(try await fixture.ctl("apps", "--json")) as? [[String: Any]]
        #expect(damaged?.first?["restoreAttempts"] as? Int == 1)
        #expect(damaged?.first?["restoreAttemptRecordDamaged"] as? Bool == true)
        try FileManager.default.removeItem(atPath: record)

        // show reads restored's own state directory, without the offline note.
        let show = try await fixture.ctl("show", ControlFixture.notes)
        #expect(show.status == 0 && show.error.isEmpty, "\(show.error)")
        #expect(show.output.hasPrefix("org.example.Notes\n  generation 1 (archive)"))
        #expect(await daemon.stop() == 0)
    }

    @Test("save, restore (R15 skip and --force), ignore-snapshot, discard and their errors")
    func actions() async throws {
        let fixture = try await ControlFixture.make()
        let daemon = try await fixture.startDaemon()
        let store = ArchiveStore(directory: FilePath(fixture.state))
        let notes = try AppID(ControlFixture.notes)

        #expect(try await fixture.ctl("save", ControlFixture.notes).status == 0)
        #expect(try store.read(notes).archive.generation == 1)
        let restore = try await fixture.ctl("restore", ControlFixture.notes)
        #expect(restore.status == 0 && restore.output.isEmpty && restore.error.isEmpty, "\(restore.error)")

        let unknown = try await fixture.ctl("restore", "org.example.Nothing")
        #expect(unknown.status == 1)
        #expect(unknown.error == "restored-ctl: no plugin for org.example.Nothing is loaded (known apps: restored-ctl apps)\n")

        // R15: a restore that never finished is skipped, and said so; --force runs it.
        _ = try store.update(notes) { $0.restoreAttempts = 1 }
        let skipped = try await fixture.ctl("restore", ControlFixture.notes)
        #expect(skipped.status == 1)
        #expect(skipped.error.contains("not restored: org.example.Notes (skipped: 1 restore(s) started and never finished (R15); restored-ctl restore --force org.example.Notes)"), "\(skipped.error)")
        #expect(try await fixture.ctl("restore", "--force", ControlFixture.notes).status == 0)

        #expect(try await fixture.ctl("ignore-snapshot", ControlFixture.notes).status == 0)
        #expect(try store.read(notes).archive.ignoresSnapshot)
        #expect(try await fixture.ctl("ignore-snapshot", ControlFixture.notes, "--clear").status == 0)
        #expect(try !store.read(notes).archive.ignoresSnapshot)

        let discard = try await fixture.ctl("discard", "--yes", ControlFixture.notes)
        #expect(discard.status == 0 && discard.error.isEmpty, "\(discard.error)")
        #expect(!FileManager.default.fileExists(atPath: fixture.state + "/\(ControlFixture.notes)"))
        let none = try await fixture.ctl("discard", "--yes", ControlFixture.notes)
        #expect(none.status == 1)
        #expect(none.error == "restored-ctl: there is no archive for org.example.Notes (known apps: restored-ctl apps)\n")
        #expect(try await fixture.ctl("ignore-snapshot", ControlFixture.notes).status == 1)
        #expect(await daemon.stop() == 0)
    }

    @Test("reload: a new plugin is added, a removed one dropped, a refused one counted, with the way to see why")
    func reload() async throws {
        let fixture = try await ControlFixture.make()
        let daemon = try await fixture.startDaemon()
        try FileManager.default.createSymbolicLink(atPath: fixture.plugins + "/libTestScenarioPlugin.so", withDestinationPath: BuildProducts.plugin("TestScenarioPlugin"))
        try FileManager.default.createSymbolicLink(atPath: fixture.plugins + "/libTestPluginWrongABI.so", withDestinationPath: BuildProducts.plugin("TestPluginWrongABI"))
        let added = try await fixture.ctl("reload")
        #expect(added.status == 0, "\(added.error)")
        #expect(added.output == "added org.restored.test.Scenario\n1 plugin file is refused: restored-ctl plugins says why\n")
        try FileManager.default.removeItem(atPath: fixture.plugins + "/libTestScenarioPlugin.so")
        let removed = try await fixture.ctl("reload")
        #expect(removed.output == "removed org.restored.test.Scenario\n1 plugin file is refused: restored-ctl plugins says why\n")
        #expect(await daemon.stop() == 0)
    }

    @Test("doctor: the bus, restored, logind and its delay lock, the state directory and each plugin")
    func doctor() async throws {
        let fixture = try await ControlFixture.make()
        let daemon = try await fixture.startDaemon()
        let run = try await fixture.ctl("doctor", "--json", environment: ["HOME": fixture.root, "XDG_DATA_HOME": fixture.root + "/data"])
        #expect(run.status == 0, "\(run.output)\(run.error)")
        let checks = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]])
        func result(_ check: String) -> String? { checks.first { $0["check"] as? String == check }?["result"] as? String }
        #expect(result("session bus") == "ok")
        #expect(result("restored") == "ok")
        #expect(result("logind") == "ok")
        #expect(result("session manager") == "warning")
        #expect(result("state directory") == "ok")
        #expect(result("plugin \(fixture.plugins)/libExampleNotesPlugin.so") == "ok")

        // A plugin directory others can write to, a plugin that is refused,
        // and one that crashes as it loads fail with remedies; the last in
        // its plugin host, not in restored-ctl.
        try FileManager.default.createSymbolicLink(atPath: fixture.plugins + "/libTestPluginWrongABI.so", withDestinationPath: BuildProducts.plugin("TestPluginWrongABI"))
        try FileManager.default.createSymbolicLink(atPath: fixture.plugins + "/libTestPluginCrashOnLoad.so", withDestinationPath: BuildProducts.plugin("TestPluginCrashOnLoad"))
        chmod(fixture.state, 0o755)
        let failing = try await fixture.ctl("doctor", environment: ["HOME": fixture.root, "XDG_DATA_HOME": fixture.root + "/data"])
        #expect(failing.status == 1)
        #expect(failing.output.contains("[failed]  state directory: \(fixture.state) has mode 755, not 700"), "\(failing.output)")
        #expect(failing.output.contains("chmod -R u=rwX,go= \(fixture.state)"))
        #expect(failing.output.contains("[failed]  plugin \(fixture.plugins)/libTestPluginWrongABI.so: refused"))
        #expect(failing.output.contains("[failed]  plugin \(fixture.plugins)/libTestPluginCrashOnLoad.so: cannot be loaded: its plugin host crashed with SIGSEGV"), "\(failing.output)")
        #expect(failing.error == "restored-ctl: 3 checks failed\n")
        #expect(await daemon.stop() == 0)
    }

    @Test("A restored that loaded no plugin (as a build run without its plugins was): status says first that nothing is saved or restored, where restored looked and how to add one; doctor warns the same")
    func noPluginLoaded() async throws {
        let fixture = try await ControlFixture.make()
        let daemon = try await fixture.startDaemon(withNotes: false)
        let statusJSON = try OfflineCommandTests.parse(try await fixture.ctl("status", "--json")) as? [String: Any]
        #expect(statusJSON?["pluginsLoaded"] as? Int == 0)
        let problem = try #require((statusJSON?["problems"] as? [String])?.first, "\(statusJSON ?? [:])")
        #expect(problem.hasPrefix("no plugin is loaded: no app is saved or restored (restored looked in \(fixture.plugins)); put an app's plugin"), "\(problem)")
        let status = try await fixture.ctl("status")
        #expect(status.output.contains("no plugin is loaded: no app is saved or restored (restored looked in \(fixture.plugins))"), "\(status.output)")
        #expect(status.output.contains("restored-ctl reload"))
        let doctor = try await fixture.ctl("doctor", environment: ["HOME": fixture.root, "XDG_DATA_HOME": fixture.root + "/data"])
        #expect(doctor.output.contains("[warning] plugins: none loads from \(fixture.plugins): no app is saved or restored"), "\(doctor.output)")
        #expect(doctor.output.contains("RESTORED_PLUGIN_PATH"))
        #expect(await daemon.stop() == 0)
    }

    @Test("doctor checks the running restored's plugin directories and plugins as it holds them (a refused one fails, exit 1); --plugin-dir checks other directories, each plugin in its plugin host")
    func doctorPluginDirectories() async throws {
        let fixture = try await ControlFixture.make()
        try FileManager.default.createSymbolicLink(atPath: fixture.plugins + "/libTestPluginWrongABI.so", withDestinationPath: BuildProducts.plugin("TestPluginWrongABI"))
        let daemon = try await fixture.startDaemon()
        // restored-ctl's own search path names another directory: the daemon's is checked.
        let elsewhere = fixture.root + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let environment = ["HOME": fixture.root, "XDG_DATA_HOME": fixture.root + "/data", "RESTORED_PLUGIN_PATH": elsewhere]
        let held = try await fixture.ctl("doctor", environment: environment)
        #expect(held.status == 1)
        #expect(held.output.contains("[ok]      plugin directory \(fixture.plugins): 1 plugin loads, 1 refused"), "\(held.output)")
        #expect(held.output.contains("[ok]      plugin \(fixture.plugins)/libExampleNotesPlugin.so: loaded by restored; serves org.example.Notes (ABI 1)"), "\(held.output)")
        #expect(held.output.contains("[failed]  plugin \(fixture.plugins)/libTestPluginWrongABI.so: refused by restored"), "\(held.output)")
        #expect(!held.output.contains(elsewhere), "\(held.output)")
        #expect(held.error == "restored-ctl: 1 check failed\n")

        // A plugin added since restored started loads, and is not loaded yet: a warning.
        try FileManager.default.createSymbolicLink(atPath: fixture.plugins + "/libTestPluginMistakes.so", withDestinationPath: BuildProducts.plugin("TestPluginMistakes"))
        let added = try await fixture.ctl("doctor", environment: environment)
        #expect(added.output.contains("[warning] plugin \(fixture.plugins)/libTestPluginMistakes.so: loads in its plugin host; serves org.restored.test.Mistakes (ABI 1), but restored has not loaded it"), "\(added.output)")
        #expect(added.output.contains("restored-ctl reload"))

        // --plugin-dir (repeatable): exactly those directories.
        try FileManager.default.createSymbolicLink(atPath: elsewhere + "/libTestScenarioPlugin.so", withDestinationPath: BuildProducts.plugin("TestScenarioPlugin"))
        let other = fixture.root + "/other"
        let given = try await fixture.ctl("doctor", "--plugin-dir", elsewhere, "--plugin-dir", other, "--json", environment: environment)
        #expect(given.status == 0, "\(given.output)\(given.error)")
        let checks = try #require(try JSONSerialization.jsonObject(with: Data(given.output.utf8)) as? [[String: Any]])
        let names = checks.compactMap { $0["check"] as? String }.filter { $0.hasPrefix("plugin") }
        #expect(names == ["plugin directory \(elsewhere)", "plugin \(elsewhere)/libTestScenarioPlugin.so", "plugin directory \(other)"], "\(names)")
        #expect(checks.first { $0["check"] as? String == "plugin \(elsewhere)/libTestScenarioPlugin.so" }?["detail"] as? String
            == "loads in its plugin host; serves org.restored.test.Scenario (ABI 1)")
        #expect(await daemon.stop() == 0)
    }
}
