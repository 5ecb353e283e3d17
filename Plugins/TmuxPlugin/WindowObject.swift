import FoundationEssentials
import RestorationKit
import SavedText
import TmuxControl

/// One window of a session, by its index; its children are its panes.
///
/// Restored at its index with its name; its exact layout, its zoom and its
/// active and last panes are applied once all its panes exist (R9).
final class WindowObject: RestorableObject, RestorationClass {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)? = WindowObject.self
    private(set) var panes: [PaneObject] = []
    private var name = ""
    private var automaticRename = false
    private var layout = ""
    private var zoomed = false
    private var activePane: PaneObject?
    private var lastPane: PaneObject?
    let isActive: Bool
    let isLast: Bool

    /// At a restore: the window's target, and the plugin holding the
    /// commands that make it and its panes.
    private var target = ""
    private weak var plugin: TmuxPlugin?
    private var path: RestorationPath?

    var restorationChildren: [any RestorableObject] { panes }

    /// The window's index, from its identifier.
    var index: Int? { restorationIdentifier.flatMap(Int.init) }

    /// A window read at a save.
    init(_ window: TmuxSnapshot.Window, session: String, context: TmuxPlugin.SaveContext) {
        restorationIdentifier = String(window.index)
        name = window.name
        automaticRename = window.automaticRename
        layout = window.layout
        zoomed = window.zoomed
        isActive = window.active
        isLast = window.last
        panes = window.panes.map { pane in
            PaneObject(pane, context: context, contents: context.contents[PaneContents.key(session: session, window: window.index, pane: pane.index)])
        }
        activePane = panes.first { $0.isActive }
        lastPane = panes.first { $0.isLast }
    }

    private init(index: Int, target: String, plugin: TmuxPlugin, path: RestorationPath) {
        restorationIdentifier = String(index)
        self.target = target
        self.plugin = plugin
        self.path = path
        isActive = false
        isLast = false
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(name, forKey: "name")
        try coder.encode(automaticRename, forKey: "automaticRename")
        try coder.encode(layout, forKey: "layout")
        try coder.encode(zoomed, forKey: "zoomed")
        // The directory the window starts in: its first pane's.
        try coder.encode(panes.first?.directory ?? "", forKey: "directory")
        if let activePane { try coder.encode(activePane, forKey: "activePane") }
        if let lastPane { try coder.encode(lastPane, forKey: "lastPane") }
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        name = try coder.decode(String.self, forKey: "name") ?? ""
        automaticRename = try coder.decode(Bool.self, forKey: "automaticRename") ?? false
        layout = try coder.decode(String.self, forKey: "layout") ?? ""
        zoomed = try coder.decode(Bool.self, forKey: "zoomed") ?? false
        activePane = try coder.decodeObject(forKey: "activePane") as? PaneObject
        lastPane = try coder.decodeObject(forKey: "lastPane") as? PaneObject
    }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? TmuxPlugin, path.components.count == 3, let index = path.last.flatMap(Int.init), index >= 0,
              let parent = path.parent, let session = plugin.restore.sessions[parent],
              let runner = plugin.runner(for: plugin.socket(named: path.identifiers[0]))
        else { return nil }
        let target = "\(session.target)\(index)"
        let name = (try? coder.decode(String.self, forKey: "name")) ?? nil
        let directory = ((try? coder.decode(String.self, forKey: "directory")) ?? nil).flatMap { $0.isEmpty ? nil : $0 }
        // The pane tmux makes with the window, whatever pane-base-index says.
        let firstPane: Int
        do {
            firstPane = try plugin.restore.paneBaseIndex(of: runner)
        } catch {
            plugin.context.log("\(path): cannot restore the window: \(error)", level: .error)
            return nil
        }
        // Made with its panes and layout at the restore's end (TmuxRestore.makeWindows).
        var commands: [[String]]
        if session.initialWindow == index {
            // The window tmux made with the session: its shell starts again in the directory.
            session.reusedInitialWindow = true
            var respawn = ["respawn-pane", "-k", "-t", target]
            if let directory { respawn += ["-c", plugin.literal(directory, for: .startDirectory, runner: runner)] }
            commands = [respawn]
        } else {
            var command = ["new-window", "-d", "-t", target]
            if let directory { command += ["-c", plugin.literal(directory, for: .startDirectory, runner: runner)] }
            commands = [command]
        }
        // Named by rename-window: `new-window -n` read formats in some
        // versions and not in others (``TmuxLiteral``).
        if let name { commands.append(["rename-window", "-t", target, plugin.literal(SavedText.printable(name), for: .windowName, runner: runner)]) }
        var window = TmuxRestore.Window(runner: runner, target: target, index: index, firstPane: firstPane, lastPane: firstPane)
        window.commands = commands
        plugin.restore.windowMade(window, at: path)
        return WindowObject(index: index, target: target, plugin: plugin, path: path)
    }

    /// Says how the window is arranged once made: its layout, zoom and
    /// active and last panes. The window is made with its panes and this
    /// arrangement at the restore's end, with the other windows of its
    /// session (``TmuxRestore/makeWindows(warn:)``).
    func finishedRestoringState() {
        guard let path else { return }
        var arranging: [[String]] = [["set-window-option", "-t", target, "automatic-rename", automaticRename ? "on" : "off"]]
        // A malformed layout crashes tmux 3.3a's server, sessions and all:
        // only one that reads as tmux writes them is given back.
        if let layout = TmuxLayout(layout) {
            arranging.append(["select-layout", "-t", target, layout.text])
        } else if !layout.isEmpty {
            plugin?.context.log("\(target): the saved layout is not one tmux writes; the panes are tiled", level: .warning)
        }
        for pane in [lastPane, activePane].compactMap({ $0 }) {
            if let index = pane.index { arranging.append(["select-pane", "-t", "\(target).\(index)"]) }
        }
        // Zoom last: a sequence that fails stops before it, and arranging
        // again zooms only a window that is not zoomed (a zoom toggles).
        let zoom = zoomed ? activePane?.index.map { ["resize-pane", "-Z", "-t", "\(target).\($0)"] } : nil
        let fallback = [arranging[0], ["select-pane", "-t", "\(target).\(activePane?.index ?? 0)"]]
        plugin?.restore.windowArranged(at: path, arranging: arranging, zoom: zoom, fallback: fallback)
    }
}
