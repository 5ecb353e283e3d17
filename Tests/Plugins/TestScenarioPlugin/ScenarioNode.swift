import Foundation
import RestorationKit

/// A configurable restorable object of the scenario tree.
final class ScenarioNode: RestorableObject {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)?
    var children: [ScenarioNode] = []
    var presented: [ScenarioNode] = []
    var isContext = false
    var disambiguates = false
    var className = "ScenarioNode"
    var value: String
    var payloadSize = 0
    var writesReservedKey = false
    /// An object without identifier this one references (R14: refused).
    var anonymousReference: ScenarioNode?
    var decodedValue: String?
    var finished = false
    weak var plugin: ScenarioPlugin?

    init(_ identifier: String?, value: String? = nil, plugin: ScenarioPlugin?) {
        restorationIdentifier = identifier
        self.value = value ?? "\(identifier ?? "anonymous")-state"
        self.plugin = plugin
    }

    var restorationChildren: [any RestorableObject] {
        // Option log-children: which objects' children are asked for.
        if plugin?.options["log-children"] == "true" { plugin?.record("children \(restorationIdentifier ?? "-")") }
        return children
    }
    var presentedObjects: [any RestorableObject] { presented }
    var definesPresentationContext: Bool { isContext }
    var disambiguatesChildren: Bool { disambiguates }
    var restorationClassName: String { className }

    func encodeRestorableState(with coder: StateCoder) throws {
        plugin?.record("encode \(restorationIdentifier ?? "-") \(value)")
        if let identifier = restorationIdentifier, plugin?.carriedIdentifiers.contains(identifier) == true {
            try coder.encode("never kept", forKey: "value")
            try coder.carryOverFromLastArchive()
            return
        }
        try coder.encode(value, forKey: "value")
        // A plugin that catches an encode error keeps the rest of its state.
        _ = try? coder.encode(StateValue.array([.int64(1), .object(nil)]), forKey: "broken")
        // Every object uses the same key: one coder per object keeps them apart (R5).
        try coder.encode("\(value)-k", forKey: "k")
        if payloadSize > 0 { try coder.encode(Data(repeating: 7, count: payloadSize), forKey: "payload") }
        if writesReservedKey { try coder.encode("forged", forKey: "restored.className") }
        if let anonymousReference { try coder.encode(anonymousReference, forKey: "anonymous") }
        // The root saves references to its children (those with identifiers),
        // and relinks them when decoding (R9, R14).
        if restorationIdentifier == "Root" {
            try coder.encode(children.filter { $0.restorationIdentifier != nil }, forKey: "children")
        }
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        plugin?.record("decode \(restorationIdentifier ?? "-")")
        if plugin?.crashesInDecode == true, restorationIdentifier == "Root" {
            plugin?.record("crashing")
            abort()
        }
        decodedValue = try coder.decode(String.self, forKey: "value")
        let className = try coder.decode(String.self, forKey: StateCoder.classNameKey)
        plugin?.record("decoded \(restorationIdentifier ?? "-") value=\(decodedValue ?? "nil") class=\(className ?? "nil")")
        let relinked = try coder.decodeObjects(forKey: "children").compactMap { ($0 as? ScenarioNode)?.restorationIdentifier }
        if !relinked.isEmpty { plugin?.record("relinked \(restorationIdentifier ?? "-") \(relinked.joined(separator: ","))") }
    }

    func finishedRestoringState() {
        finished = true
        plugin?.record("finished \(restorationIdentifier ?? "-")")
    }
}

/// Recreates objects (R8 step 1).
enum CreateClass: RestorationClass {
    static var restorationClassName: String { "CreateClass" }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        let plugin = coder.plugin as? ScenarioPlugin
        plugin?.record("class CreateClass \(path)")
        // Created without identifier: the engine gives it back (R8).
        let node = ScenarioNode(nil, value: "fresh", plugin: plugin)
        plugin?.created.append(node)
        return node
    }
}

/// Declines to recreate (R8 step 1: nil stops the subtree).
enum DeclineClass: RestorationClass {
    static var restorationClassName: String { "DeclineClass" }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        (coder.plugin as? ScenarioPlugin)?.record("class DeclineClass \(path)")
        return nil
    }
}

/// A restoration class the plugin forgets to list in `restorationClasses`
/// (option unlisted-class): its objects are saved, and not restored.
enum UnlistedClass: RestorationClass {
    static var restorationClassName: String { "UnlistedClass" }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        ScenarioNode(nil, plugin: coder.plugin as? ScenarioPlugin)
    }
}
