import Foundation
import RestoredArchive
import RestoredEngine
import RestoredState
import SystemPackage
import Testing

/// The preservation rules (`docs/archive.md`), driven through the scenario plugin.
@Suite struct PreservationRulesTests {
    @Test("R1, R2: objects without identifier are skipped with their whole subtree", arguments: TreeListing.allCases)
    func optInAndAncestors(_ listing: TreeListing) throws {
        let harness = try ScenarioHarness(listing: listing)
        let (report, _) = try harness.preserve()
        #expect(report.outcome == .saved(generation: 1))
        let paths = Set(try harness.archive().objects.map(\.path.description))
        // R2: Orphan has an identifier but its parent has none: not under Root.
        #expect(!paths.contains { $0.hasPrefix("Root/Orphan") })
        #expect(report.skippedWithoutIdentifier >= 1)
        #expect(paths.contains("Root"))
        #expect(paths.contains("Root/Stack"))
    }

    @Test("R3: a disambiguating container gives children positions; duplicate siblings are an error", arguments: TreeListing.allCases)
    func uniquePaths(_ listing: TreeListing) throws {
        let harness = try ScenarioHarness(listing: listing)
        let (report, _) = try harness.preserve()
        let archive = try harness.archive()
        let paths = archive.objects.map(\.path.description)
        #expect(paths.contains("Root/Stack/Page[0]"))
        #expect(paths.contains("Root/Stack/Page[1]"))
        #expect(try ScenarioHarness.state(of: "Root/Stack/Page[1]", in: archive)["value"] == .string("page-1"))
        // Twins does not disambiguate: the second Twin is refused with an error naming the path.
        #expect(paths.filter { $0 == "Root/Twins/Twin" }.count == 1)
        let duplicate = try #require(report.issues.first { $0.rule == "R3" })
        #expect(duplicate.path?.description == "Root/Twins/Twin")
        #expect(duplicate.description.contains("org.restored.test.Scenario: Root/Twins/Twin"))
        #expect(Set(paths).count == paths.count)
    }

    @Test("R4: a presented object hangs under the presentation context, not under the presenter", arguments: TreeListing.allCases)
    func presentedObjects(_ listing: TreeListing) throws {
        let harness = try ScenarioHarness(listing: listing)
        _ = try harness.preserve()
        let archive = try harness.archive()
        let modal = try #require(archive.objects.first { $0.path.description == "Root/Modal" })
        #expect(modal.kind == .presented)
        #expect(!archive.objects.contains { $0.path.description == "Root/Panel/Modal" })
    }

    @Test("R3, R4: a presented object whose path under the presentation context is a child's is refused; the child keeps it", arguments: TreeListing.allCases)
    func presentedCollision(_ listing: TreeListing) throws {
        let harness = try ScenarioHarness(listing: listing)
        let (report, _) = try harness.preserve(["presented-collides": "true"])
        let archive = try harness.archive()
        let stacks = archive.objects.filter { $0.path.description == "Root/Stack" }
        #expect(stacks.count == 1)
        #expect(stacks.first?.kind == .child)
        #expect(archive.objects.contains { $0.path.description == "Root/Stack/Page[1]" })
        let collision = try #require(report.issues.first { $0.rule == "R3" && $0.path?.description == "Root/Stack" })
        #expect(collision.description.contains("another object already has this path"))
        #expect(Set(archive.objects.map(\.path)).count == archive.objects.count)
    }

    @Test("R2: an object listed under two parents is saved once, at the first; its name stays free under the second", arguments: TreeListing.allCases)
    func sharedObject(_ listing: TreeListing) throws {
        let harness = try ScenarioHarness(listing: listing)
        let (report, _) = try harness.preserve(["shared": "true"])
        let archive = try harness.archive()
        #expect(try ScenarioHarness.state(of: "Root/Panel/Shared", in: archive)["value"] == .string("shared"))
        // The second listing is refused, and does not take the path from
        // the object of Morph's own that has the same identifier.
        let twice = try #require(report.issues.first { $0.rule == "R2" })
        #expect(twice.path?.description == "Root/Morph/Shared")
        #expect(twice.description.contains("already appears at Root/Panel/Shared"))
        #expect(try ScenarioHarness.state(of: "Root/Morph/Shared", in: archive)["value"] == .string("morph-own"))
        #expect(!report.issues.contains { $0.rule == "R3" && $0.path?.description == "Root/Morph/Shared" })
        #expect(Set(archive.objects.map(\.path)).count == archive.objects.count)
    }

    @Test("R5: one container per object; reserved keys are refused with a clear error")
    func oneCoderPerObject() throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve()
        let archive = try harness.archive()
        // Every object wrote the key "k"; each kept its own value.
        #expect(try ScenarioHarness.state(of: "Root/Stack", in: archive)["k"] == .string("Stack-state-k"))
        #expect(try ScenarioHarness.state(of: "Root/Panel", in: archive)["k"] == .string("Panel-state-k"))
        // A value whose encoding failed (and was caught) left nothing behind.
        #expect(try ScenarioHarness.state(of: "Root/Stack", in: archive)["broken"] == nil)
        // The system's keys are metadata, not in the plugin's container.
        #expect(try ScenarioHarness.state(of: "Root/Panel", in: archive)["restored.className"] == nil)
        #expect(archive.objects.first { $0.path.description == "Root/Panel" }?.className == "ScenarioNode")

        let forged = try ScenarioHarness()
        let (report, _) = try forged.preserve(["reserved-key": "true"])
        let issue = try #require(report.issues.first { $0.path?.description == "Root/Panel" })
        #expect(issue.message.contains("reserved prefix \"restored.\""))
        // The rest of the app is still saved.
        #expect(report.savedPaths.contains { $0.description == "Root/Stack" })
        #expect(!report.savedPaths.contains { $0.description == "Root/Panel" })
    }

    @Test("R6: shouldSave first, then willEncode, then the objects; declining discards the stale archive")
    func delegateOrder() throws {
        let harness = try ScenarioHarness()
        let (report, events) = try harness.preserve()
        #expect(report.outcome == .saved(generation: 1))
        #expect(events.first == "shouldSave appVersion=7.3")
        let willEncode = try #require(events.firstIndex(of: "willEncode"))
        let firstEncode = try #require(events.firstIndex(prefixed: "encode "))
        #expect(willEncode < firstEncode)
        #expect(try ScenarioHarness.state(of: "Root", in: harness.archive())["value"] == .string("Root-state"))

        let (declined, declinedEvents) = try harness.preserve(["should-save": "false"])
        #expect(declined.outcome == .declined)
        #expect(!declinedEvents.contains("willEncode"))
        #expect(throws: ArchiveStoreError.noArchive(ScenarioHarness.appID)) { try harness.store.read(ScenarioHarness.appID) }
        #expect(harness.fixture.log.messages.last == "info: \(ScenarioHarness.appID) declined to save; its previous archive is discarded")

        // Declining again finds nothing to discard, and the log says so: at
        // an autosave only in debug, as an app with nothing open declines
        // at every one.
        for occasion in [SaveOccasion.request, .autosave] {
            let (again, _) = try harness.preserve(["should-save": "false"], occasion: occasion)
            #expect(again.outcome == .declined)
            let level = occasion == .autosave ? "debug" : "info"
            #expect(harness.fixture.log.messages.last == "\(level): \(ScenarioHarness.appID) declined to save; it had no archive to discard")
        }
    }

    @Test("R6: the plugin is told each save's occasion; a decline while the session ends or the machine shuts down keeps the last archive, a decline in a session that goes on discards it", arguments: SaveOccasion.allCases)
    func declineByOccasion(_ occasion: SaveOccasion) throws {
        let harness = try ScenarioHarness()
        let walks = harness.files.path.appending("walks").string
        let (saved, _) = try harness.preserve(["walks": walks], occasion: .autosave)
        #expect(saved.outcome == .saved(generation: 1))
        let (declined, _) = try harness.preserve(["should-save": "false", "walks": walks], occasion: occasion)
        #expect(ScenarioHarness.lines(FilePath(walks)) == ["save autosave restore-reason=nil", "save \(occasion) restore-reason=nil"])
        if occasion == .sessionEnd || occasion == .shutdown {
            guard case .kept(let reason) = declined.outcome else {
                Issue.record("expected kept, got \(declined.outcome)")
                return
            }
            #expect(reason.contains("while the session ends (\(occasion))"))
            #expect(declined.word == .kept)
            #expect(try harness.archive().generation == 1)
        } else {
            #expect(declined.outcome == .declined)
            #expect(throws: ArchiveStoreError.noArchive(ScenarioHarness.appID)) { try harness.store.read(ScenarioHarness.appID) }
        }
    }

    @Test("R6's third answer: keep what you have writes nothing and keeps both generations, at every occasion", arguments: SaveOccasion.allCases)
    func keepLastArchive(_ occasion: SaveOccasion) throws {
        let harness = try ScenarioHarness()
        _ = try harness.preserve(occasion: .autosave)
        _ = try harness.preserve(occasion: .autosave)
        let (kept, events) = try harness.preserve(["should-save": "keep"], occasion: occasion)
        #expect(kept.outcome == .kept(PreservationReport.keptByPlugin))
        #expect(kept.word == .kept && !kept.word.isFailure)
        #expect(!events.contains("willEncode"))
        #expect(try harness.archive().generation == 2)
        #expect(try harness.store.read(ScenarioHarness.appID, generation: .previous).archive.generation == 1)
    }

    @Test("R3, R5, R13: a save that drops objects is partial: each dropped object by path with why, in the report and the archive", arguments: TreeListing.allCases)
    func partial(_ listing: TreeListing) throws {
        let harness = try ScenarioHarness(listing: listing)
        let (report, _) = try harness.preserve(["reserved-key": "true", "big": "2000000"])
        #expect(report.isPartial && report.word == .partial && report.word.isFailure)
        let dropped = Dictionary(uniqueKeysWithValues: report.droppedObjects.map { ($0.path.description, $0.reason) })
        #expect(dropped["Root/Twins/Twin"]?.hasSuffix("(R3)") == true)
        #expect(dropped["Root/Panel"]?.contains("key \"restored.className\" uses the reserved prefix") == true)
        #expect(dropped["Root/Big"]?.contains("passes the object budget of") == true)
        // Only the top of a dropped subtree is named.
        #expect(dropped["Root/Big/BigChild"] == nil && dropped["Root/Modal"] == nil)
        #expect(try harness.archive().droppedObjects == report.droppedObjects)
    }

    @Test("R12: redact callback before the snapshot; the ignore flag is stored in the archive")
    func snapshots() throws {
        let harness = try ScenarioHarness()
        let (report, events) = try harness.preserve(["secret": "true"])
        #expect(report.hasSnapshot)
        let redact = try #require(events.firstIndex(of: "willTakeSnapshot"))
        let snapshot = try #require(events.firstIndex(of: "snapshot"))
        #expect(redact < snapshot)
        var archive = try harness.archive()
        #expect(archive.snapshot == Snapshot(mediaType: "text/plain; charset=utf-8", data: Array("redacted".utf8)))
        #expect(!archive.ignoresSnapshot)

        _ = try harness.preserve(["ignore-snapshot": "true"])
        archive = try harness.archive()
        #expect(archive.ignoresSnapshot)
    }

    @Test("R13: an object over its budget is dropped with its subtree; the rest of the app is saved", arguments: TreeListing.allCases)
    func byteBudgets(_ listing: TreeListing) throws {
        let harness = try ScenarioHarness(configuration: EngineConfiguration(objectByteBudget: 2048), listing: listing)
        let (report, _) = try harness.preserve(["big": "4096"])
        let issue = try #require(report.issues.first { $0.rule == "R13" })
        #expect(issue.path?.description == "Root/Big")
        #expect(issue.description.contains("Root/Big"))
        let paths = Set(report.savedPaths.map(\.description))
        #expect(!paths.contains("Root/Big"))
        #expect(!paths.contains("Root/Big/BigChild"))
        #expect(paths.contains("Root/Created"))
        #expect(report.outcome == .saved(generation: 1))

        // The app budget: once used up, objects that do not fit are dropped.
        let tight = try ScenarioHarness(configuration: EngineConfiguration(objectByteBudget: 8192, appByteBudget: 300), listing: listing)
        let (tightReport, _) = try tight.preserve(["big": "10"])
        #expect(tightReport.issues.contains { $0.rule == "R13" && $0.message.contains("app's budget") })
        #expect(tightReport.savedPaths.contains { $0.description == "Root" })
    }

    @Test("R14: an excluded object saved by hand through the app coder is preserved", arguments: TreeListing.allCases)
    func manualSaves(_ listing: TreeListing) throws {
        let harness = try ScenarioHarness(listing: listing)
        _ = try harness.preserve()
        let archive = try harness.archive()
        let orphan = try #require(archive.objects.first { $0.path.description == "Orphan" })
        #expect(orphan.kind == .manual)
        let appState = try StateContainerReader.decodeEntries(archive.appState)
        #expect(appState.contains(StoredEntry(key: "orphan", value: .reference(ObjectPath(identifiers: "Orphan")))))
        // A container's references to its children are stored as paths.
        let root = try ScenarioHarness.state(of: "Root", in: archive)
        guard case .array(let children)? = root["children"] else {
            Issue.record("Root has no children references")
            return
        }
        #expect(children.contains(.reference(ObjectPath(identifiers: "Root", "Stack"))))
    }

    @Test("R6 per object: an object its plugin carries over is kept from the last archive with its subtree and the time it was saved, its children never asked; without a last archive it is left out and the save is partial", arguments: TreeListing.allCases)
    func carriedOver(_ listing: TreeListing) throws {
        let harness = try ScenarioHarness(listing: listing)
        func paths(_ objects: [OmittedObject]) -> Set<String> { Set(objects.map(\.path.description)) }
        // The scenario always leaves Big and a twin out (R3, R13).
        let alwaysLeftOut: Set<String> = ["Root/Big", "Root/Twins/Twin"]
        // No archive yet: nothing to carry over.
        let (fresh, _) = try harness.preserve(["carry": "Stack", "value-prefix": "zero-"])
        #expect(paths(fresh.droppedObjects) == alwaysLeftOut.union(["Root/Stack"]))
        #expect(try !harness.archive().objects.contains { $0.path.description.hasPrefix("Root/Stack") })

        _ = try harness.preserve(["value-prefix": "one-"])
        let first = try harness.archive()
        let (report, events) = try harness.preserve(["carry": "Stack", "value-prefix": "two-"])
        let second = try harness.archive()
        #expect(paths(report.droppedObjects) == alwaysLeftOut)
        #expect(report.carriedObjects == [CarriedObject(path: ObjectPath(identifiers: "Root", "Stack"), since: first.timestamp)])
        #expect(second.carriedObjects == report.carriedObjects)
        // Stack and its pages are as the first save wrote them; the rest is new.
        #expect(try ScenarioHarness.state(of: "Root/Stack", in: second)["value"] == .string("one-Stack-state"))
        #expect(try ScenarioHarness.state(of: "Root/Stack/Page[1]", in: second)["value"] == .string("one-page-1"))
        #expect(try ScenarioHarness.state(of: "Root/Panel", in: second)["value"] == .string("two-Panel-state"))
        #expect(!events.contains { $0.hasPrefix("encode Page") })
        #expect(Set(second.objects.map(\.path)) == Set(first.objects.map(\.path)))

        // Carried again: still the first save's state, since the first save.
        let (again, _) = try harness.preserve(["carry": "Stack", "value-prefix": "three-"])
        #expect(again.carriedObjects.first?.since == first.timestamp)
        #expect(try ScenarioHarness.state(of: "Root/Stack", in: harness.archive())["value"] == .string("one-Stack-state"))

        // A restore reads a carried object like any other.
        let (restored, restoreEvents, _) = try harness.restore()
        #expect(restored.outcome == .restored)
        #expect(restoreEvents.contains("decoded Stack value=one-Stack-state class=ScenarioNode"))
    }

    @Test("A plugin reads the time left in its walk: the deadline its host was given, none without one")
    func timeLeftInWalk() throws {
        let harness = try ScenarioHarness()
        let (_, events) = try harness.preserve()
        #expect(events.contains("time left none"))
        let (session, log, _) = try harness.session()
        session.walkDeadline = .now + .seconds(3600)
        _ = harness.engine.preserve(session)
        let left = ScenarioHarness.lines(log).first { $0.hasPrefix("time left ") }.flatMap { Int($0.dropFirst(10)) }
        // Within the hour given, and not past it (no speed is measured).
        #expect(left.map { (1 ... 3600).contains($0) } == true, "\(left.map(String.init) ?? "nothing")")
    }
}
