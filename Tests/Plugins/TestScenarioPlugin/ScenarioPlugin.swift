import Foundation
import RestorationKit

/// A plugin for the engine's tests (`org.restored.test.Scenario`).
///
/// Its tree exercises every rule; options switch behaviours on. Every
/// callback is appended to the file named by the option `log`, and
/// restoration writes what each object received to the file named by
/// `result` (JSON), so the tests check the engine from outside the plugin.
///
/// ```
/// Root (context)
/// ├─ (no identifier) ─ Orphan      saved by hand from the app coder (R14)
/// ├─ Stack (disambiguates) ─ Page, Page   (R3 positions); with option
/// │          reference-anonymous it references an object without identifier (R14)
/// ├─ Twins ─ Twin, Twin            duplicate paths (R3)
/// ├─ Panel ─ presents Modal         hangs under Root (R4); with option
/// │          presented-collides also a "Stack", whose path is taken (R3);
/// │          with option second-place also a child "Twin" (with a child
/// │          Leaf) listed under Twins first (R2, R3); with option cycle
/// │          also Root (R2); with option repeat-deeper also Echo, which
/// │          Root lists last (R2); option stack-mixed puts an object
/// │          without identifier between the pages and a presented Sheet
/// │          on Stack (R3, R4)
/// ├─ Big ─ BigChild                 over the object budget (R13)
/// ├─ Declined ─ DeclinedChild       restoration class says nil (R8.1)
/// ├─ Created                        restoration class recreates it (R8.1)
/// ├─ ByDelegate                     the delegate provides it (R8.2)
/// ├─ Morph                          its class changes with option morph (R10);
/// │                                 with option shared, Panel and Morph share a child (R2)
/// ├─ Missing                        found nowhere at restoration (R8.4)
/// ├─ K, Caf\u{E9}                     with option registered-equivalent, registered
/// │                                 under canonically equivalent paths (R8.3)
/// └─ Sub                            with option registered-slash, registered nowhere,
///                                   beside an object registered as "Root/Sub" (R8.3)
/// ```
final class ScenarioPlugin: RestorationPlugin {
    static let appID = "org.restored.test.Scenario"
    static let appVersion = "7.3"
    static var restorationClasses: [any RestorationClass.Type] { [CreateClass.self, DeclineClass.self] }

    let options: [String: String]
    let context: PluginContext
    var created: [ScenarioNode] = []
    var crashesInDecode: Bool { options["crash-in-decode"] == "true" }
    /// Option carry: identifiers of the objects carried over from the last
    /// archive instead of encoded (comma-separated).
    var carriedIdentifiers: Set<String> { Set((options["carry"] ?? "").split(separator: ",").map(String.init)) }
    private var nodes: [String: ScenarioNode] = [:]
    private let root: ScenarioNode
    private let orphan: ScenarioNode
    private var redacted = false
    private let forwardedLookup = DefaultLookup()

    init(context: PluginContext) throws {
        self.context = context
        options = context.options
        root = ScenarioNode("Root", plugin: nil)
        orphan = ScenarioNode("Orphan", plugin: nil)
        build()
    }

    private func node(_ identifier: String?, _ key: String? = nil) -> ScenarioNode {
        let node = ScenarioNode(identifier, plugin: self)
        nodes[key ?? identifier ?? "anonymous"] = node
        return node
    }

    private func build() {
        root.plugin = self
        root.isContext = true
        nodes["Root"] = root
        orphan.plugin = self
        nodes["Orphan"] = orphan

        let hidden = node(nil, "Hidden")
        hidden.children = [orphan]
        let stack = node("Stack")
        stack.disambiguates = true
        stack.children = [node("Page", "Page0"), node("Page", "Page1")]
        // Option reference-anonymous: Stack references an object without
        // identifier under "anonymous" (R14: refused, and named by its key).
        if options["reference-anonymous"] == "true" { stack.anonymousReference = ScenarioNode(nil, plugin: self) }
        nodes["Page0"]!.value = "page-0"
        nodes["Page1"]!.value = "page-1"
        let twins = node("Twins")
        twins.children = [node("Twin", "Twin0"), node("Twin", "Twin1")]
        let panel = node("Panel")
        panel.writesReservedKey = options["reserved-key"] == "true"
        panel.presented = [node("Modal")]
        // Option presented-collides: Panel also presents an object named like
        // Root's child Stack; under Root (R4) its path is taken (R3).
        if options["presented-collides"] == "true" { panel.presented.append(node("Stack", "PresentedStack")) }
        let big = node("Big")
        big.payloadSize = Int(options["big"] ?? "4096") ?? 4096
        big.children = [node("BigChild")]
        let declined = node("Declined")
        declined.restorationClass = DeclineClass.self
        declined.children = [node("DeclinedChild")]
        let created = node("Created")
        created.restorationClass = CreateClass.self
        let byDelegate = node("ByDelegate")
        let morph = node("Morph")
        if options["morph"] == "true" { morph.className = "MorphedNode" }
        let missing = node("Missing")
        root.children = [hidden, stack, twins, panel, big, declined, created, byDelegate, morph, missing]
        // Option unlisted-class: an object whose restoration class the plugin
        // does not list (R8: not restored, and the reason names the class).
        if options["unlisted-class"] == "true" {
            let unlisted = node("Unlisted")
            unlisted.restorationClass = UnlistedClass.self
            root.children.append(unlisted)
        }

        // Option shared: one object is a child of both Panel and Morph; a
        // tree has no cycles, so it is saved once, under Panel (R2). Morph
        // also has an object of its own named Shared, listed after it.
        if options["shared"] == "true" {
            let shared = node("Shared")
            shared.value = "shared"
            panel.children.append(shared)
            morph.children.append(shared)
            let own = node("Shared", "MorphShared")
            own.value = "morph-own"
            morph.children.append(own)
        }

        // Option second-place: an object named Twin, with a child, is
        // listed under Twins, where its path is taken (R3), and under Panel,
        // where it is saved with its child.
        if options["second-place"] == "true" {
            let wanderer = node("Twin", "Wanderer")
            wanderer.children = [node("Leaf")]
            twins.children.append(wanderer)
            panel.children.append(wanderer)
        }

        // Option cycle: Panel lists Root among its children; a tree has no
        // cycles, so Root is saved once, as the root (R2).
        if options["cycle"] == "true" { panel.children.append(root) }

        // Option repeat-deeper: Echo, with a child Voice, is a child of
        // Panel and, last, of Root: saved under Panel, reached first in
        // the walk (R2), though nearer the root at its second place.
        if options["repeat-deeper"] == "true" {
            let echo = node("Echo")
            echo.children = [node("Voice")]
            panel.children.append(echo)
            root.children.append(echo)
        }

        // Option stack-mixed: an object without identifier between the
        // pages, which still takes a position (R3), and a sheet Stack
        // presents, which hangs under Root, the presentation context (R4).
        if options["stack-mixed"] == "true" {
            stack.children.insert(node(nil, "StackAnonymous"), at: 1)
            stack.presented = [node("Sheet")]
        }

        // Option registered-equivalent: two objects registered under paths
        // of other bytes than the saved ones that are the same text
        // (canonically equivalent): "K" under the Kelvin sign, "Caf\u{E9}"
        // under "Cafe" and a combining accent (R8 step 3).
        if options["registered-equivalent"] == "true" {
            let kelvin = node("K")
            let cafe = node("Caf\u{E9}")
            root.children += [kelvin, cafe]
            context.registerObject(kelvin, at: RestorationPath("Root", "\u{212A}"))
            context.registerObject(cafe, at: RestorationPath("Root", "Cafe\u{301}"))
        }

        // Option registered-slash: Root's child Sub is registered nowhere,
        // and another object is registered under the one identifier
        // "Root/Sub", which no saved path has: it is not Root/Sub (R8 step 3).
        if options["registered-slash"] == "true" {
            let sub = node("Sub")
            root.children.append(sub)
            context.registerObject(node("Root/Sub", "SlashDecoy"), at: RestorationPath("Root/Sub"))
        }

        // Option value-prefix: every value starts with it (tells saves apart).
        if let prefix = options["value-prefix"] {
            for node in nodes.values { node.value = prefix + node.value }
        }

        // R8 step 3: what exists at launch. Missing, Created and ByDelegate are not registered.
        for key in ["Root", "Stack", "Twins", "Panel", "Modal", "Big", "BigChild", "Morph"] {
            context.registerObject(nodes[key]!, at: path(of: key))
        }
        context.registerObject(nodes["Page0"]!, at: RestorationPath([.init("Root"), .init("Stack"), .init("Page", position: 0)]))
        context.registerObject(nodes["Page1"]!, at: RestorationPath([.init("Root"), .init("Stack"), .init("Page", position: 1)]))
        // Option unregister: Morph is registered no more; Twins is
        // unregistered and registered again.
        if options["unregister"] == "true" {
            context.unregisterObject(at: path(of: "Morph"))
            context.unregisterObject(at: path(of: "Twins"))
            context.registerObject(nodes["Twins"]!, at: path(of: "Twins"))
        }
    }

    private func path(of key: String) -> RestorationPath {
        switch key {
        case "Root": RestorationPath("Root")
        case "Modal": RestorationPath("Root", "Modal")
        case "BigChild": RestorationPath("Root", "Big", "BigChild")
        default: RestorationPath("Root", key)
        }
    }

    var rootObjects: [any RestorableObject] { [root] }

    // MARK: Recording

    func record(_ event: String) {
        guard let file = options["log"] else { return }
        let line = Data((event + "\n").utf8)
        if let handle = FileHandle(forWritingAtPath: file) {
            handle.seekToEndOfFile()
            handle.write(line)
            try? handle.close()
        } else {
            _ = FileManager.default.createFile(atPath: file, contents: line)
        }
    }

    // MARK: Delegate

    /// Option walks: each walk appends why it runs, as the host said
    /// (`save session end`, `restore recovery`).
    func recordWalk(_ line: String) {
        guard let file = options["walks"] else { return }
        let handle = FileHandle(forWritingAtPath: file) ?? {
            _ = FileManager.default.createFile(atPath: file, contents: nil)
            return FileHandle(forWritingAtPath: file)
        }()
        handle?.seekToEndOfFile()
        handle?.write(Data((line + "\n").utf8))
        try? handle?.close()
    }

    /// Option should-save=keep answers "keep what you have" (R6's third answer).
    func saveDecision(coder: StateCoder) throws -> SaveDecision {
        if options["should-save"] == "keep" {
            recordWalk("save \(context.saveOccasion.map(String.init(describing:)) ?? "nil") keep")
            record("keep")
            return .keepLastArchive
        }
        return shouldSaveApplicationState(coder: coder) ? .save : .decline
    }

    func shouldSaveApplicationState(coder: StateCoder) -> Bool {
        recordWalk("save \(context.saveOccasion.map(String.init(describing:)) ?? "nil") restore-reason=\(context.restoreReason.map(String.init(describing:)) ?? "nil")")
        let version = (try? coder.decode(String.self, forKey: StateCoder.appVersionKey)) ?? "nil"
        record("shouldSave appVersion=\(version)")
        return options["should-save"] != "false"
    }

    func willEncodeRestorableState(with coder: StateCoder) throws {
        record("willEncode")
        // Option save-gate: a save waits until this file exists (at most a
        // minute), like an app slow to answer, for as long as a test wants.
        Self.wait(forGate: options["save-gate"])
        try coder.encode("app-state", forKey: "app")
        // R14: the orphan's parent has no identifier, so it is saved by hand.
        try coder.encode(orphan, forKey: "orphan")
        if options["ignore-snapshot"] == "true" { try context.ignoreSnapshotOnNextLaunch() }
    }

    func willTakeSnapshot() {
        record("willTakeSnapshot")
        record("time left \(context.timeLeftInWalk.map { String($0.components.seconds) } ?? "none")")
        redacted = options["secret"] == "true"
    }

    func snapshot() -> RestorationSnapshot? {
        record("snapshot")
        return RestorationSnapshot(text: redacted ? "redacted" : "balance: 1234")
    }

    /// Waits until the file `gate` exists, at most a minute; at once for nil.
    static func wait(forGate gate: String?) {
        guard let gate else { return }
        let deadline = Date(timeIntervalSinceNow: 60)
        while !FileManager.default.fileExists(atPath: gate), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    func shouldRestoreApplicationState(coder: StateCoder) -> Bool {
        // Option restore-gate: a restore waits until this file exists.
        Self.wait(forGate: options["restore-gate"])
        recordWalk("restore \(context.restoreReason.map(String.init(describing:)) ?? "nil") save-occasion=\(context.saveOccasion.map(String.init(describing:)) ?? "nil")")
        let version = (try? coder.decode(String.self, forKey: StateCoder.appVersionKey)) ?? "nil"
        let stamp = (try? coder.decode(Date.self, forKey: StateCoder.timestampKey)).map { _ in "yes" } ?? "no"
        let app = (try? coder.decode(String.self, forKey: "app")) ?? "nil"
        record("shouldRestore appVersion=\(version) timestamp=\(stamp) app=\(app)")
        return options["should-restore"] != "false"
    }

    func present(_ snapshot: RestorationSnapshot) {
        record("present \(String(decoding: snapshot.data, as: UTF8.self))")
    }

    func object(forRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        record("delegate \(path)")
        guard path.last == "ByDelegate" || path.last == "Orphan" else {
            // Option delegate-forwards: the paths this lookup does not know
            // go to an object that keeps the SDK's default lookup.
            return options["delegate-forwards"] == "true" ? forwardedLookup.object(forRestorationIdentifierPath: path, coder: coder) : nil
        }
        let node = ScenarioNode(nil, value: "fresh", plugin: self)
        created.append(node)
        return node
    }

    func didDecodeRestorableState(with coder: StateCoder) throws {
        let orphan = try coder.decodeObject(forKey: "orphan") as? ScenarioNode
        record("didDecode app=\(try coder.decode(String.self, forKey: "app") ?? "nil") orphan=\(orphan?.decodedValue ?? "nil")")
    }

    func restorationDidFinish() {
        record("didFinish")
        guard let file = options["result"] else { return }
        var result: [String: [String: String]] = [:]
        for node in Array(nodes.values) + created {
            guard node.decodedValue != nil || node.finished else { continue }
            let key = node.restorationIdentifier ?? "-"
            result[key + (result[key] == nil ? "" : "#\(result.count)")] = [
                "value": node.decodedValue ?? "",
                "finished": node.finished ? "true" : "false",
                "restorationClass": node.restorationClass?.restorationClassName ?? "",
            ]
        }
        if let data = try? JSONSerialization.data(withJSONObject: result, options: [.sortedKeys]) {
            try? data.write(to: URL(fileURLWithPath: file))
        }
    }
}

@_cdecl("restored_plugin_v1")
public func restoredPluginV1() -> UnsafeRawPointer { PluginExport.descriptor(for: ScenarioPlugin.self) }

/// An object that keeps every default of ``RestorationDelegate``: the
/// scenario's lookup asks it, with option delegate-forwards.
final class DefaultLookup: RestorationDelegate {}
