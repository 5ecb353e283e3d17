import AppDiscovery
import AppLaunching
import RestorationKit

/// One running instance of an app, by its place among the app's instances
/// (`0`, `1`, ... in the order they started): its working directory and the
/// files or URLs it was opened with.
///
/// Restored by starting the app again, unless that many instances already
/// run (no app is started twice).
final class AppInstanceObject: RestorableObject, RestorationClass {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)? = AppInstanceObject.self
    private let directory: String?
    private let items: [String]

    init(index: Int, app: RunningApp?) {
        restorationIdentifier = String(index)
        directory = app?.directory
        items = app?.openedItems ?? []
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        if let directory { try coder.encode(directory, forKey: "directory") }
        if !items.isEmpty { try coder.encode(items, forKey: "items") }
    }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? SessionPlugin, path.components.count == 2, let id = path.identifiers.first,
              let index = path.last.flatMap(Int.init), index >= 0, let entry = plugin.restoringEntries[id]
        else { return nil }
        // Already running that many: this one is there.
        if index < plugin.runningCount(of: id) { return nil }
        let directory = (try? coder.decode(String.self, forKey: "directory")) ?? nil
        let items = ((try? coder.decode([String].self, forKey: "items")) ?? nil) ?? []
        plugin.pendingLaunches.append(DesktopLaunch(entry: entry, directory: directory, items: items))
        return AppInstanceObject(index: index, app: nil)
    }
}
