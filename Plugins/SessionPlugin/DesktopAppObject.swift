import AppDiscovery
import AppLaunching
import DesktopEntries
import RestorationKit

/// One app of the session, by its desktop file id; its children are its
/// running instances (``AppInstanceObject``).
///
/// Restored when its desktop entry still exists and may be launched: a
/// missing or broken entry is one log line, and its instances stay closed.
final class DesktopAppObject: RestorableObject, RestorationClass {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)? = DesktopAppObject.self
    let instances: [AppInstanceObject]

    var restorationChildren: [any RestorableObject] { instances }

    /// An app read at a save; `windows` are each process's windows, when the window manager says.
    /// A terminal's shells are read by `shells`, given its process and windows.
    init(
        desktopID: String, instances: [RunningApp], entry: DesktopEntry?, windows: [Int32: [PlacedWindow]],
        shells: (Int32, [PlacedWindow]) -> TerminalShells
    ) {
        restorationIdentifier = desktopID
        let isTerminal = TerminalEmulator.find(desktopID: desktopID, executable: entry?.exec?.program) != nil
        self.instances = instances.enumerated().map { index, app in
            let placed = windows[app.pid] ?? []
            return AppInstanceObject(index: index, app: app, entry: entry, shells: isTerminal ? shells(app.pid, placed) : nil, windows: placed.map(\.place))
        }
    }

    /// An app none of whose instances runs now: those a restore could not
    /// reopen, carried as the archive had them (renumbered from 0).
    init(desktopID: String, carrying carried: [AppInstanceObject]) {
        restorationIdentifier = desktopID
        instances = carried.enumerated().map { index, instance in instance.renumbered(index) }
    }

    private init(desktopID: String) {
        restorationIdentifier = desktopID
        instances = []
    }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? SessionPlugin, path.components.count == 1, let id = path.last, id.hasSuffix(".desktop") else { return nil }
        if plugin.isLeftOut(id) {
            plugin.context.log("\(id): left out now (an option or a plugin changed since the save); it is not reopened", level: .notice)
            return nil
        }
        guard let entry = plugin.entries[id] else {
            let problem = plugin.entries.problems.first { $0.contains("/\(id)") }
            plugin.context.log("\(id): \(problem ?? "its desktop entry is gone"); it is not reopened", level: .warning)
            return nil
        }
        guard entry.isLaunchable else {
            plugin.context.log("\(id): its desktop entry is hidden or no application; it is not reopened", level: .notice)
            return nil
        }
        plugin.restore.appRestoring(id, entry: entry)
        return DesktopAppObject(desktopID: id)
    }
}
