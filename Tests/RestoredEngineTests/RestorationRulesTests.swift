import Foundation
import RestoredArchive
import RestoredEngine
import RestoredState
import SystemPackage
import Testing
import ProcessSpawning

/// The restoration rules (`docs/archive.md`), driven through the scenario plugin.
@Suite struct RestorationRulesTests {
    @Test("R7: no archive, no restoration; shouldRestore sees the reserved keys and can decline")
    func optIn() throws {
        let harness = try ScenarioHarness()
        let (none, noneEvents, _) = try harness.restore()
        #expect(none.outcome == .noArchive)
        #expect(noneEvents.isEmpty)

        _ = try harness.preserve()
        let (declined, events, _) = try harness.restore(["should-restore": "false"])
        #expect(declined.outcome == .declined)
        #expect(events == ["shouldRestore appVersion=7.3 timestamp=yes app=app-state"])
        // Declining is a finished restoration: no crash-loop count is left behind (R15).
        #expect(try harness.restoreAttempts() == 0)
    }

    @Test("R7, R15: a recovery (restored restarted while the app runs) restores nothing unless the plugin restores into a running app; the archive and its attempt count stay as they were")
    func recoveryLeavesLiveAppsAlone() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve()
        let before = try harness.archive()
        let walks = harness.files.path.appending("walks").string
        let (skipped, events, _) = try harness.restore(["walks": walks], reason: .recovery)
        #expect(skipped.outcome == .skippedLiveApp)
        #expect(skipped.outcome.word == .live)
        #expect(!skipped.outcome.word.isFailure)
        #expect(events.isEmpty)
        #expect(try harness.archive() == before)

        let (restored, _, _) = try harness.restore(["walks": walks], reason: .recovery, restoresIntoRunningApp: true)
        #expect(restored.outcome == .restored)
        let (again, _, _) = try harness.restore(["walks": walks], reason: .request)
        #expect(again.outcome == .restored)
        #expect(ScenarioHarness.lines(FilePath(walks)) == ["restore recovery save-occasion=nil", "restore request save-occasion=nil"])
    }

    @Test("R7: an archive of an unknown format version is not restored")
    func unknownFormatVersion() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve()
        let file = harness.store.file(for: ScenarioHarness.appID, generation: .current)
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: file.string)))
        bytes[8] = 99  // the format version, right after the 8-byte magic
        try Data(bytes).write(to: URL(fileURLWithPath: file.string))
        let (report, events, _) = try harness.restore()
        guard case .unusableArchive(let reason) = report.outcome else {
            Issue.record("expected an unusable archive, got \(report.outcome)")
            return
        }
        #expect(reason.contains("org.restored.test.Scenario"))
        #expect(events.isEmpty)
    }

    @Test("R8: restoration class, then delegate, then registered objects; nil from a class stops the subtree")
    func lookupOrder() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve()
        let (report, events, result) = try harness.restore()
        #expect(report.outcome == .restored)
        let restored = Set(report.restoredPaths.map(\.description))
        let notRestored = Set(report.notRestored.map(\.path.description))

        // Step 1: the class declined: neither the object nor its child is restored,
        // and nobody else is asked for the child.
        #expect(events.contains("class DeclineClass Root/Declined"))
        #expect(notRestored.isSuperset(of: ["Root/Declined", "Root/Declined/DeclinedChild"]))
        #expect(!events.contains { $0.contains("DeclinedChild") })
        // Step 1: the class recreated the object, which got its identifier and class back.
        #expect(restored.contains("Root/Created"))
        #expect(result["Created"]?["restorationClass"] == "CreateClass")
        #expect(result["Created"]?["value"] == "Created-state")
        // Step 2: no restoration class: the delegate is asked first.
        #expect(events.contains("delegate Root/ByDelegate"))
        #expect(result["ByDelegate"]?["value"] == "ByDelegate-state")
        // Step 3: the delegate said nil, the registered object is used.
        #expect(events.contains("delegate Root/Stack"))
        #expect(restored.isSuperset(of: ["Root", "Root/Stack", "Root/Stack/Page[0]", "Root/Stack/Page[1]", "Root/Modal"]))
        // Step 4: found nowhere: not restored.
        #expect(notRestored.contains("Root/Missing"))
        #expect(result["Missing"] == nil)
        // Each object not restored says why, by its path.
        let reasons = Dictionary(uniqueKeysWithValues: report.notRestored.map { ($0.path.description, $0.reason) })
        #expect(reasons["Root/Declined"] == "its restoration class DeclineClass returned no object: it and its subtree are not restored (R8)")
        #expect(reasons["Root/Declined/DeclinedChild"] == "its ancestor Root/Declined was declined by its restoration class, with its subtree (R8)")
        #expect(reasons["Root/Missing"]?.hasPrefix("no object for this path: it has no restoration class, the delegate gave none, and none is registered at this path") == true)
    }

    @Test("R8: a registered object is found at a saved path of other bytes that is the same text, as Swift compares strings")
    func registeredEquivalentPaths() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve(["registered-equivalent": "true"])
        let (report, _, result) = try harness.restore(["registered-equivalent": "true"])
        let restored = Set(report.restoredPaths.map(\.description))
        // Saved as "K" (ASCII), registered under the Kelvin sign.
        #expect(restored.contains("Root/K"))
        #expect(result["K"]?["value"] == "K-state")
        // Saved precomposed, registered with a combining accent.
        #expect(restored.contains("Root/Caf\u{E9}"))
        #expect(result["Caf\u{E9}"]?["value"] == "Caf\u{E9}-state")
        #expect(restored.isSuperset(of: ["Root", "Root/Stack", "Root/Stack/Page[0]", "Root/Stack/Page[1]", "Root/Modal"]))
        #expect(result["Stack"]?["value"] == "Stack-state")
    }

    @Test("R8: an object registered under one identifier holding \"/\" is not found at the path of two identifiers it spells")
    func registeredSlashIsNotAPath() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve(["registered-slash": "true"])
        let (report, _, result) = try harness.restore(["registered-slash": "true"])
        let reasons = Dictionary(uniqueKeysWithValues: report.notRestored.map { ($0.path.description, $0.reason) })
        #expect(reasons["Root/Sub"]?.hasPrefix("no object for this path") == true)
        #expect(result["Sub"] == nil)
        #expect(result["Root/Sub"] == nil)
        #expect(report.restoredPaths.map(\.description).contains("Root/Stack"))
    }

    @Test("R8, R16: a crafted archive's object of the one identifier \"Root/Sub\" finds the object registered there")
    func craftedSlashIdentifierFindsItsObject() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve(["registered-slash": "true"])
        // No save writes such a path (R3): an archive made by hand may.
        let slashed = ObjectPath([.init(identifier: "Root/Sub")])
        try harness.store.update(ScenarioHarness.appID) { archive in
            let sub = archive.objects.first { $0.path.description == "Root/Sub" }!
            archive.objects.append(ArchivedObject(path: slashed, className: sub.className, kind: .child, state: sub.state))
        }
        let (report, _, result) = try harness.restore(["registered-slash": "true"])
        #expect(report.restoredPaths.contains(slashed))
        #expect(result["Root/Sub"]?["value"] == "Sub-state")
        // Root/Sub, of two identifiers, is still found nowhere.
        let reasons = report.notRestored.filter { $0.path == ObjectPath(identifiers: "Root", "Sub") }.map(\.reason)
        #expect(reasons.count == 1 && reasons[0].hasPrefix("no object for this path"))
    }

    @Test("R8: a delegate or a registry lookup that fails leaves the object out, naming the callback and the plugin's words", arguments: [
        ("delegate-fails", "object_from_delegate failed: the delegate could not look"),
        ("registry-fails", "registered_object failed: the registry could not look"),
        // The delegate's message is not the registry's.
        ("registry-fails-silently", "registered_object failed with status -1"),
    ])
    func failedLookups(fault: String, words: String) throws {
        let plugins = try PluginFixture(["TestFaultyPlugin"])
        let fixture = try EngineFixture()
        let plugin = try plugins.plugin("org.restored.test.Faulty")
        let saved = fixture.engine.preserve(try plugin.makeSession(logger: fixture.log.logger()))
        #expect(saved.outcome == .saved(generation: 1))
        let report = fixture.engine.restore(try plugin.makeSession(options: ["fault": fault], logger: fixture.log.logger()))
        #expect(report.restoredPaths.isEmpty)
        let reason = try #require(report.notRestored.first { $0.path.description == "Main" }?.reason)
        #expect(reason == "it could not be located: \(words) (R8)")
        // Without the fault, the registered object is found.
        let again = fixture.engine.restore(try plugin.makeSession(options: ["fault": "none"], logger: fixture.log.logger()))
        #expect(again.restoredPaths.map(\.description) == ["Main"])
    }

    @Test("R8: a plugin's own lookup that asks an object keeping the default lookup is still asked for every object")
    func forwardedDelegateLookup() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve()
        let (report, events, result) = try harness.restore(["delegate-forwards": "true"])
        // Root is looked up first, and forwarded; ByDelegate later.
        #expect(events.contains("delegate Root"))
        #expect(events.contains("delegate Root/ByDelegate"))
        #expect(report.restoredPaths.map(\.description).contains("Root/ByDelegate"))
        #expect(result["ByDelegate"]?["value"] == "ByDelegate-state")
    }

    @Test("R8: an object unregistered is not found at its path; one registered again is")
    func unregisteredObjects() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve()
        let (report, _, result) = try harness.restore(["unregister": "true"])
        let reasons = Dictionary(uniqueKeysWithValues: report.notRestored.map { ($0.path.description, $0.reason) })
        #expect(reasons["Root/Morph"]?.hasPrefix("no object for this path") == true)
        #expect(result["Morph"] == nil)
        #expect(report.restoredPaths.map(\.description).contains("Root/Twins"))
        #expect(result["Twins"]?["value"] == "Twins-state")
    }

    @Test("R8: an object whose restoration class the plugin does not list is not restored, and the reason names the class and the fix")
    func unlistedRestorationClass() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve(["unlisted-class": "true"])
        let (report, _, _) = try harness.restore(["unlisted-class": "true"])
        #expect(report.outcome == .restored)
        let reason = try #require(report.notRestored.first { $0.path.description == "Root/Unlisted" }?.reason)
        #expect(reason == "it could not be located: object_from_restoration_class failed: no restoration class named UnlistedClass is registered; add it to the plugin's restorationClasses (R8)")
    }

    @Test("R9: locate all, then decode all, then finishedRestoringState, then the delegate")
    func twoPhases() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve()
        let (report, events, result) = try harness.restore()
        #expect(report.outcome == .restored)
        let lastLocate = try #require(events.lastIndex { $0.hasPrefix("class ") || $0.hasPrefix("delegate ") })
        let firstDecode = try #require(events.firstIndex(prefixed: "decode "))
        let lastDecode = try #require(events.lastIndex(prefixed: "decoded "))
        let firstFinished = try #require(events.firstIndex(prefixed: "finished "))
        let lastFinished = try #require(events.lastIndex(prefixed: "finished "))
        let didDecode = try #require(events.firstIndex(prefixed: "didDecode"))
        #expect(lastLocate < firstDecode)
        #expect(lastDecode < firstFinished)
        #expect(lastFinished < didDecode)
        #expect(events.last == "didFinish")
        // Decoding sees every located object: the root relinks its children,
        // including the one its restoration class created in phase 1.
        let relinked = try #require(events.first { $0.hasPrefix("relinked Root ") })
        #expect(relinked.contains("Created"))
        #expect(relinked.contains("Stack"))
        #expect(result.values.allSatisfy { $0["finished"] == "true" })
    }

    @Test("R10: an object whose class changed is used but not decoded")
    func classCheck() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve()
        let (report, events, _) = try harness.restore(["morph": "true"])
        #expect(report.classMismatchPaths.map(\.description) == ["Root/Morph"])
        #expect(!events.contains("decode Morph"))
        #expect(events.contains("finished Morph"))
        #expect(events.contains("decode Stack"))
    }

    @Test("R12: the snapshot is handed over, unless the archive says to ignore it")
    func snapshotFlag() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve()
        let (shown, shownEvents, _) = try harness.restore()
        #expect(shown.snapshot == .presented)
        #expect(shownEvents.contains("present balance: 1234"))
        let presentAt = try #require(shownEvents.firstIndex(prefixed: "present "))
        let firstDecode = try #require(shownEvents.firstIndex(prefixed: "decode "))
        #expect(presentAt < firstDecode)

        _ = try harness.preserve(["ignore-snapshot": "true"])
        let (ignored, ignoredEvents, _) = try harness.restore()
        #expect(ignored.snapshot == .ignored)
        #expect(!ignoredEvents.contains { $0.hasPrefix("present ") })
    }

    @Test("R14: the manually saved object is restored and the delegate decodes its reference")
    func manualSaveRestored() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve()
        let (report, events, _) = try harness.restore()
        #expect(report.restoredPaths.contains { $0.description == "Orphan" })
        #expect(events.contains("didDecode app=app-state orphan=Orphan-state"))
    }

    @Test("R15: a restore that never finished blocks the next automatic one; force runs it; discard deletes")
    func crashLoopGuard() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve()
        let pluginDirectory = harness.plugins.directory.path.appending("plugins")

        // A real process restores and crashes inside the plugin.
        let crashed = try DemoProcess.run([
            "restore", "--state-dir", harness.store.directory.string, "--plugin-dir", pluginDirectory.string,
            "--option", "org.restored.test.Scenario:crash-in-decode=true", "org.restored.test.Scenario",
        ])
        #expect(crashed.signal == SIGABRT)
        #expect(try harness.restoreAttempts() == 1)

        let (skipped, events, _) = try harness.restore()
        #expect(skipped.outcome == .skippedAfterFailedAttempt(attempts: 1, recordIsDamaged: false))
        #expect(events.isEmpty)
        #expect(try harness.archive().objects.isEmpty == false)

        let (forced, _, _) = try harness.restore(mode: .forced)
        #expect(forced.outcome == .restored)
        #expect(try harness.restoreAttempts() == 0)
        let (again, _, _) = try harness.restore()
        #expect(again.outcome == .restored)

        #expect(try harness.store.discard(ScenarioHarness.appID))
        #expect(throws: ArchiveStoreError.noArchive(ScenarioHarness.appID)) { try harness.store.read(ScenarioHarness.appID) }
    }

    @Test("R16: hostile archive bytes with a valid checksum give errors, never a crash or a foreign type")
    func hostileArchive() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve()
        var archive = try harness.archive()
        let stack = try #require(archive.objects.firstIndex { $0.path.description == "Root/Stack" })
        archive.objects[stack].state = [0x01, 0x41, 0xEE]  // key "A", then an unknown value tag
        let created = try #require(archive.objects.firstIndex { $0.path.description == "Root/Created" })
        archive.objects[created].restorationClass = "Foundation.FileManager"  // a type name from the archive
        try harness.store.rewrite(archive)

        let (report, events, _) = try harness.restore()
        #expect(report.outcome == .restored)
        #expect(report.notRestored.contains { $0.path.description == "Root/Stack" })
        #expect(report.issues.contains { $0.rule == "R16" && $0.path?.description == "Root/Stack" })
        // The unknown class name instantiates nothing: the object is simply not restored.
        #expect(report.notRestored.contains { $0.path.description == "Root/Created" })
        #expect(!events.contains { $0.contains("CreateClass") }, "\(events)")
        #expect(report.restoredPaths.contains { $0.description == "Root/Panel" })
    }
}

/// Runs `restored-demo` as a separate process and waits for it (through
/// ProcessSpawning, the one spawner).
enum DemoProcess {
    struct Outcome {
        var status: Int32?
        var signal: Int32?
        var output: String
    }

    static func run(_ arguments: [String]) throws -> Outcome {
        let run = try ProgramRun.run(
            BuildProducts.demo.string, arguments: ["restored-demo"] + arguments, environment: ProcessInfo.processInfo.environment, timeout: .seconds(120)
        )
        let output = run.outputText + String(decoding: run.errors, as: UTF8.self)
        switch run.ending {
        case .exited(let status): return Outcome(status: status, signal: nil, output: output)
        case .signaled(let signal): return Outcome(status: nil, signal: signal, output: output)
        }
    }
}
