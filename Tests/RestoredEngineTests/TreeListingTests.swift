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

    @Test("R2, R3, R4: an object listed under Panel and, last, under Root is saved under Panel with its child; an object without identifier still takes a position; a sheet a container presents hangs under the presentation context", arguments: TreeListing.allCases)
    func repeatedDeeperAndPositions(_ listing: TreeListing) throws {
        let harness = try ScenarioHarness(listing: listing)
        let (report, _) = try harness.preserve(["repeat-deeper": "true", "stack-mixed": "true"])
        let archive = try harness.archive()
        let paths = archive.objects.map(\.path.description)
        // The walk reaches Panel's Echo first; in one call the SDK lists
        // Echo's child at Root's, nearer the root.
        #expect(paths.contains("Root/Panel/Echo"))
        #expect(paths.contains("Root/Panel/Echo/Voice"))
        #expect(!paths.contains { $0.hasPrefix("Root/Echo") })
        let twice = try #require(report.issues.first { $0.rule == "R2" && $0.path?.description == "Root/Echo" })
        #expect(twice.description.contains("already appears at Root/Panel/Echo"))
        // Positions count the object without identifier, not the sheet.
        #expect(paths.contains("Root/Stack/Page[0]"))
        #expect(paths.contains("Root/Stack/Page[2]"))
        #expect(!paths.contains("Root/Stack/Page[1]"))
        let sheet = try #require(archive.objects.first { $0.path.description == "Root/Sheet" })
        #expect(sheet.kind == .presented)
        #expect(!paths.contains { $0.hasPrefix("Root/Stack/Sheet") })
    }

    @Test("Both listings save the same objects, states, omissions and issues from the same scenario, and an SDK plugin answers list_tree: it lists the children of objects the host then refuses, which list_objects is never asked for")
    func sameArchiveBothWays() throws {
        let options = [
            "second-place": "true", "cycle": "true", "repeat-deeper": "true", "stack-mixed": "true", "shared": "true", "presented-collides": "true",
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

    @Test("R1-R4 for a C plugin's list_tree: the tree in one call, no list_objects; one that fails, reports under a parent it never reported or calls sink_add loses nothing and keeps nothing of its tree (it is listed with list_objects, the save says why, and that instance is listed so from then on, silently); an object reported with its children unlisted gets them from list_objects", arguments: [
        ("none", ["Main"], 0, nil),
        ("tree-fails", ["Main"], 2, "list_tree failed: the tree could not be listed"),
        ("tree-bad-parent", ["Main"], 2, "list_tree failed: tree_add named the parent 7, which is not among the 1 reported before it"),
        ("tree-sink-add", ["Main"], 2, "list_tree failed: sink_add was called in list_tree, which reports with tree_add"),
        ("tree-unlisted", ["Main", "Main/Pane"], 2, nil),
    ] as [(String, [String], Int64, String?)])
    func cPluginTree(fault: String, paths: [String], listings: Int64, words: String?) throws {
        let plugins = try PluginFixture(["TestFaultyPlugin"])
        let fixture = try EngineFixture()
        let plugin = try plugins.plugin("org.restored.test.Faulty")
        let appID = try AppID("org.restored.test.Faulty")
        let session = try plugin.makeSession(options: ["fault": fault], logger: fixture.log.logger())
        for save in 1...2 {
            let report = fixture.engine.preserve(session)
            #expect(report.outcome == .saved(generation: UInt64(save)))
            #expect(!report.isPartial)
            let archive = try fixture.store.read(appID).archive
            #expect(archive.objects.map(\.path.description) == paths)
            let main = try #require(archive.objects.first { $0.path.description == "Main" })
            // How many times the host called list_objects in this save.
            let state = Dictionary(uniqueKeysWithValues: try StateContainerReader.decodeEntries(main.state).map { ($0.key, $0.value) })
            #expect(state["listings"] == .int64(listings))
            let fallback = report.issues.filter { $0.message.contains("list_tree") }.map(\.message)
            if let words, save == 1 {
                #expect(fallback == ["\(words); restored lists this plugin's objects with list_objects from now on, which loses nothing (fix its list_tree, or leave it NULL)"])
            } else {
                #expect(fallback.isEmpty)
            }
        }
    }
}
