import Foundation
import RestoredArchive
import RestoredEngine
import RestoredState
import Testing

/// The two ways a plugin reports its tree (`list_tree` in one call, or
/// `list_objects` once per object) keep the same rules (R1-R4, R14) and save
/// the same archive; a `list_tree` that fails loses nothing.
@Suite struct TreeListingTests {
    @Test("R2, R3: an object whose path is taken at its first place in the tree is saved at its second, with its child; a cycle back to the root ends there, refused once", arguments: TreeListing.allCases)
    func secondPlaceAndCycle(_ listing: TreeListing) throws {
        let harness = try ScenarioHarness(listing: listing)
        let (report, _) = try harness.preserve(["second-place": "true", "cycle": "true"])
        let archive = try harness.archive()
        let paths = archive.objects.map(\.path.description)
        // Under Twins its path is a twin's (R3); under Panel it is saved,
        // and its child with it, though in one call the plugin listed that
        // child only at the first place.
        #expect(paths.contains("Root/Panel/Twin"))
        #expect(paths.contains("Root/Panel/Twin/Leaf"))
        #expect(paths.filter { $0 == "Root/Twins/Twin" }.count == 1)
        // Root listed again under Panel is refused (R2), and the walk ends.
        let cycle = try #require(report.issues.first { $0.rule == "R2" && $0.path?.description == "Root/Panel/Root" })
        #expect(cycle.description.contains("already appears at Root"))
        #expect(paths.filter { $0 == "Root" }.count == 1)
        #expect(!paths.contains { $0.hasPrefix("Root/Panel/Root") })
        #expect(Set(paths).count == paths.count)
    }

    @Test("Both listings save the same objects, states, omissions and issues from the same scenario, and an SDK plugin answers list_tree: it lists the children of objects the host then refuses, which list_objects is never asked for")
    func sameArchiveBothWays() throws {
        let options = [
            "second-place": "true", "cycle": "true", "shared": "true", "presented-collides": "true",
            "registered-equivalent": "true", "unlisted-class": "true", "reference-anonymous": "true",
            "big": "4096", "log-children": "true",
        ]
        var saved: [TreeListing: (archive: Archive, report: PreservationReport, events: [String])] = [:]
        for listing in TreeListing.allCases {
            let harness = try ScenarioHarness(listing: listing)
            let (report, events) = try harness.preserve(options)
            saved[listing] = (try harness.archive(), report, events)
        }
        let inOneCall = try #require(saved[.inOneCall]), objectByObject = try #require(saved[.objectByObject])
        func objects(_ archive: Archive) -> [String] {
            archive.objects.map { "\($0.path) \($0.kind) \($0.className) \($0.state)" }
        }
        #expect(objects(inOneCall.archive) == objects(objectByObject.archive))
        #expect(inOneCall.archive.appState == objectByObject.archive.appState)
        #expect(inOneCall.archive.droppedObjects == objectByObject.archive.droppedObjects)
        #expect(inOneCall.report.issues.map(\.description) == objectByObject.report.issues.map(\.description))
        #expect(inOneCall.report.skippedWithoutIdentifier == objectByObject.report.skippedWithoutIdentifier)
        #expect(inOneCall.archive.objects.count > 10)
        // Object by object, the host asks for the children of the two
        // objects named Twin it records (the first twin, the one under
        // Panel). In one call the SDK lists those of all three it meets under
        // Twins, and the host asks again, with list_objects, for those of
        // the one it records at its second place, under Panel.
        #expect(objectByObject.events.filter { $0 == "children Twin" }.count == 2)
        #expect(inOneCall.events.filter { $0 == "children Twin" }.count == 4)
    }

    @Test("A C plugin's list_tree: one that fails, or reports an object under a parent it never reported, loses nothing (the tree is listed object by object, and the save says why); an object reported with its children unlisted gets them from list_objects", arguments: [
        ("none", ["Main"], nil),
        ("tree-fails", ["Main"], "list_tree failed: the tree could not be listed"),
        ("tree-bad-parent", ["Main"], "list_tree failed with status -4"),
        ("tree-unlisted", ["Main", "Main/Pane"], nil),
    ] as [(String, [String], String?)])
    func cPluginTree(fault: String, paths: [String], words: String?) throws {
        let plugins = try PluginFixture(["TestFaultyPlugin"])
        let fixture = try EngineFixture()
        let plugin = try plugins.plugin("org.restored.test.Faulty")
        let report = fixture.engine.preserve(try plugin.makeSession(options: ["fault": fault], logger: fixture.log.logger()))
        #expect(report.outcome == .saved(generation: 1))
        #expect(!report.isPartial)
        #expect(try fixture.store.read(try AppID("org.restored.test.Faulty")).archive.objects.map(\.path.description) == paths)
        let listed = report.issues.filter { $0.message.contains("in one call") }.map(\.message)
        if let words {
            #expect(listed == ["the plugin could not list its objects in one call (\(words)); they are listed one by one"])
        } else {
            #expect(listed.isEmpty)
        }
    }
}
