import AppDiscovery
import AppLaunching
import DesktopEntries
import RestorationKit
import NeovimControl
import NeovimState
import SavedText
import TerminalPrograms

/// One running instance of an app, by its place among the app's instances
/// (`0`, `1`, ... in the order they started): its working directory and the
/// files or URLs it was opened with.
///
/// Restored by starting the app again, unless that many instances already
/// run (no app is started twice). One whose launch failed keeps what it
/// was restored from, so that the next saves carry it to the next try.
final class AppInstanceObject: RestorableObject, RestorationClass {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)? = AppInstanceObject.self
    private let directory: String?
    private let items: [String]
    /// For a terminal emulator: its windows' shells (directory, program,
    /// Neovim state), and how many windows ran tmux instead.
    private let shells: TerminalShells?
    /// Where its windows were (``SavedWindow``).
    private let windows: [SavedWindow]

    init(index: Int, app: RunningApp?, entry: DesktopEntry? = nil, shells: TerminalShells? = nil, windows: [SavedWindow] = []) {
        restorationIdentifier = String(index)
        directory = app?.directory.flatMap { SavedText.isPlainAbsolutePath($0) ? $0 : nil }
        // The same rule as at the restore: the archive holds no more.
        items = entry.map { entry in (app?.openedItems ?? []).filter { DesktopAppLauncher.mayOpen($0, with: entry) } } ?? []
        self.shells = shells
        self.windows = windows
    }

    /// An instance as the archive held it, checked as a restore reads it.
    private init(index: Int, directory: String?, items: [String], shells: TerminalShells?, windows: [SavedWindow]) {
        restorationIdentifier = String(index)
        self.directory = directory
        self.items = items
        self.shells = shells
        self.windows = windows
    }

    /// The same instance under another index (carried into a save after
    /// the running ones).
    func renumbered(_ index: Int) -> AppInstanceObject {
        AppInstanceObject(index: index, directory: directory, items: items, shells: shells, windows: windows)
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        if let directory { try coder.encode(directory, forKey: "directory") }
        if !items.isEmpty { try coder.encode(items, forKey: "items") }
        if let shells {
            try coder.encode(StateValue.array(shells.shells.map(\.stateValue)), forKey: "shells")
            if shells.tmuxWindows > 0 { try coder.encode(shells.tmuxWindows, forKey: "tmux-windows") }
            if let windowTabs = shells.windowTabs { try coder.encode(windowTabs, forKey: "window-tabs") }
            if let kitty = shells.kitty { try coder.encode(kitty.stateValue, forKey: "kitty") }
        }
        if !windows.isEmpty {
            try coder.encode(StateValue.array(windows.map(\.stateValue)), forKey: "windows")
        }
    }

    /// The shells stored by ``encodeRestorableState(with:)`` (or, from an
    /// archive of an earlier version, their directories alone); nil for an
    /// instance that is no terminal's. Directories that are not plain
    /// absolute paths are dropped, programs go through `policy` again
    /// (R16), and a Neovim state that does not read is dropped with a line
    /// in `problems`.
    static func decodeShells(_ coder: StateCoder, policy: ProgramPolicy, problems: inout [String]) -> [TerminalShells.Shell]? {
        if let directories = (try? coder.decode([String].self, forKey: "shell-directories")) ?? nil {
            return directories.filter(SavedText.isPlainAbsolutePath).map { TerminalShells.Shell(directory: $0) }
        }
        guard case .array(let values)? = (try? coder.decodeValue(forKey: "shells")) ?? nil else { return nil }
        return values.compactMap { TerminalShells.Shell(stateValue: $0, policy: policy, problems: &problems) }
    }

    /// The window placements stored by ``encodeRestorableState(with:)``; those that do not read are skipped.
    static func decodeWindows(_ coder: StateCoder) -> [SavedWindow] {
        guard case .array(let values)? = (try? coder.decodeValue(forKey: "windows")) ?? nil else { return [] }
        return values.compactMap(SavedWindow.init(stateValue:))
    }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? SessionPlugin, path.components.count == 2, let id = path.identifiers.first,
              let index = path.last.flatMap(Int.init), index >= 0, let entry = plugin.restore.entries[id]
        else { return nil }
        plugin.restore.instanceArchived(of: id)
        // Already running that many: this one is there.
        if index < plugin.runningCount(of: id) { return nil }
        // Directories and files are the archive's (untrusted): only plain
        // absolute paths, and URLs of the schemes that name a document,
        // never an option (R16: the archive names files to open, not
        // arguments to give; ``DesktopAppLauncher/mayOpen(_:with:)``).
        let directory = ((try? coder.decode(String.self, forKey: "directory")) ?? nil).flatMap { SavedText.isPlainAbsolutePath($0) ? $0 : nil }
        let saved = ((try? coder.decode([String].self, forKey: "items")) ?? nil) ?? []
        let items = saved.filter { DesktopAppLauncher.mayOpen($0, with: entry) }
        if items.count < saved.count {
            plugin.context.log("\(path): \(saved.count - items.count) of its files are not reopened: not a plain path or a document URL, or its program would run them", level: .notice)
        }
        // A terminal: its windows in the directories of their shells, through
        // its own options, each running its program again where it ran one.
        var problems: [String] = []
        if let shells = decodeShells(coder, policy: plugin.policy, problems: &problems),
           let terminal = TerminalEmulator.find(desktopID: id, executable: entry.exec?.program),
           let program = entry.exec?.program, terminal.accepts(program: program) {
            let tmuxWindows = ((try? coder.decode(Int.self, forKey: "tmux-windows")) ?? nil) ?? 0
            if shells.isEmpty && tmuxWindows > 0 {
                plugin.context.log("\(path): its windows ran tmux, which the tmux plugin restores; it is not reopened", level: .info)
                return nil
            }
            let saved = decodeWindows(coder)
            // kitty's own tabs and layouts, as one session file.
            var kittyProblems: [String] = []
            if terminal.executable == "kitty", let value = (try? coder.decodeValue(forKey: "kitty")) ?? nil,
               let kitty = KittyLayout(stateValue: value, policy: plugin.policy, problems: &kittyProblems), !kitty.windows.isEmpty {
                for problem in kittyProblems { plugin.context.log("\(path): \(problem)", level: .info) }
                let instance = AppInstanceObject(
                    index: index, directory: directory, items: [], shells: TerminalShells(shells: kitty.windows, tmuxWindows: tmuxWindows, kitty: kitty), windows: saved
                )
                do {
                    try plugin.pendKitty(kitty, entry: entry, placing: saved, for: instance, path: path.description)
                    return instance
                } catch {
                    plugin.context.log("\(path): its tabs and layouts cannot be given back (\(error)); its windows come back one by one", level: .warning)
                }
            }
            for problem in problems { plugin.context.log("\(path): \(problem)", level: .info) }
            // How many tabs each window held (GNOME Terminal); read as untrusted: used only when it adds up.
            let windowTabs = ((try? coder.decode([Int].self, forKey: "window-tabs")) ?? nil)
            let instance = AppInstanceObject(
                index: index, directory: directory, items: [],
                shells: TerminalShells(shells: shells, tmuxWindows: tmuxWindows, windowTabs: windowTabs), windows: saved
            )
            // Shells only, several windows of tabs: each window with its own tabs, in one launch.
            if shells.allSatisfy({ $0.program == nil }),
               let byWindow = instance.shells?.byWindow(windows: saved.count),
               let launch = terminal.launch(windows: byWindow.map { $0.map(\.directory) }) {
                plugin.restore.pend(
                    DesktopLaunch(entry: entry, directory: launch.directory, items: [], arguments: launch.arguments), placing: saved, for: instance
                )
                return instance
            }
            var windows = saved[...]
            func pend(_ launch: (arguments: [String], directory: String), script: ProgramScript? = nil) {
                plugin.restore.pend(
                    DesktopLaunch(entry: entry, directory: launch.directory, items: [], arguments: launch.arguments),
                    placing: windows.first.map { [$0] } ?? [], for: instance, files: script.map { [$0.path] } ?? []
                )
                windows = windows.dropFirst()
            }
            if shells.allSatisfy({ $0.program == nil }) {
                // Shells only: as one launch where the terminal opens tabs.
                for launch in terminal.launches(directories: shells.isEmpty ? [directory ?? ""].filter { !$0.isEmpty } : shells.map(\.directory)) { pend(launch) }
            } else {
                for shell in shells {
                    guard let program = shell.program else {
                        terminal.launches(directories: [shell.directory]).forEach { pend($0) }
                        continue
                    }
                    do {
                        let script = try plugin.writeTerminalScript(running: program, alone: shell.alone)
                        pend(terminal.launch(directory: shell.directory, running: script.terminalCommand), script: script)
                        if let editor = shell.editor { plugin.restore.editorWaits(for: script.path, editor, path: path.description) }
                    } catch {
                        plugin.context.log("\(path): \(program.first ?? ""): \(error); the window gets a shell", level: .warning)
                        terminal.launches(directories: [shell.directory]).forEach { pend($0) }
                    }
                }
            }
            if shells.isEmpty && directory == nil {
                plugin.restore.pend(DesktopLaunch(entry: entry, directory: nil, items: []), placing: Array(windows), for: instance)
            }
            return instance
        }
        let windows = decodeWindows(coder)
        let instance = AppInstanceObject(index: index, directory: directory, items: items, shells: nil, windows: windows)
        plugin.restore.pend(DesktopLaunch(entry: entry, directory: directory, items: items), placing: windows, for: instance)
        return instance
    }
}
