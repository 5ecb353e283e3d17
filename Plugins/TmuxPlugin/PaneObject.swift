import FoundationEssentials
import RestorationKit
import SavedText
import SystemPackage
import TmuxControl
import TerminalPrograms

/// One pane of a window, by its index; its child is the program it shows,
/// when that program is on the allow-list.
///
/// Restored in its working directory with its title; the program, if any,
/// is started again in its shell (``ProgramObject``).
final class PaneObject: RestorableObject, RestorationClass {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)? = PaneObject.self
    let directory: String
    private let title: String
    /// Its visible text, when the plugin keeps it.
    private let contents: String?
    private let program: ProgramObject?
    let isActive: Bool
    let isLast: Bool

    var restorationChildren: [any RestorableObject] { program.map { [$0] } ?? [] }

    /// The pane's index in tmux: its identifier's when read at a save, the
    /// one tmux gives it when restored (from the server's pane-base-index,
    /// which may differ).
    private(set) var index: Int?

    /// A pane read at a save; its program is kept when the policy allows
    /// it, with its state when it is a Neovim.
    init(_ pane: TmuxSnapshot.Pane, context: TmuxPlugin.SaveContext, contents: String?) {
        restorationIdentifier = String(pane.index)
        index = pane.index
        directory = pane.directory
        title = pane.title
        self.contents = contents.map(PaneContents.printable)
        isActive = pane.active
        isLast = pane.last
        program = ForegroundProgram.of(panePID: pane.pid).flatMap { found in
            // Only what the policy keeps is saved: no option that runs code or holds a secret.
            guard let command = context.policy.command(for: found.arguments) else { return nil }
            return ProgramObject(arguments: command, editor: context.readEditor(found))
        }
    }

    private init(index: Int) {
        restorationIdentifier = String(index)
        self.index = index
        directory = ""
        title = ""
        contents = nil
        program = nil
        isActive = false
        isLast = false
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(directory, forKey: "directory")
        try coder.encode(title, forKey: "title")
        if let contents, !contents.isEmpty { try coder.encode(contents, forKey: "contents") }
    }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? TmuxPlugin, path.components.count == 4, let saved = path.last.flatMap(Int.init), saved >= 0,
              let parent = path.parent, var window = plugin.restore.windows[parent]
        else { return nil }
        let directory = ((try? coder.decode(String.self, forKey: "directory")) ?? nil).flatMap { $0.isEmpty ? nil : $0 }
        let title = (try? coder.decode(String.self, forKey: "title")) ?? nil
        var commands: [[String]] = []
        var target = "\(window.target).\(window.firstPane)"
        if window.firstPaneUsed {
            // A new pane after the last one made: split it, and share the room out.
            var split = ["split-window", "-d", "-t", "\(window.target).\(window.lastPane)"]
            if let directory { split += ["-c", plugin.literal(directory, for: .startDirectory, runner: window.runner)] }
            commands += [split, ["select-layout", "-t", window.target, "tiled"]]
            window.lastPane += 1
            target = "\(window.target).\(window.lastPane)"
        }
        window.firstPaneUsed = true
        // tmux expands formats in a title (`#(command)` would run): it goes
        // as a literal, without the control characters tmux refuses.
        if let title = title.map(SavedText.printable), !title.isEmpty, plugin.supports(.paneTitles, runner: window.runner, otherwise: "panes get no title") {
            commands.append(["select-pane", "-t", target, "-T", plugin.literal(title, for: .title, runner: window.runner)])
        }
        // The text it showed, printed again above a new shell's prompt (only
        // when this plugin keeps pane contents).
        var printed: FilePath?
        if plugin.keepsPaneContents, let text = (try? coder.decode(String.self, forKey: "contents")) ?? nil, !text.isEmpty,
           let file = Self.writeContents(PaneContents.printable(text), plugin: plugin) {
            printed = file
            // tmux runs this with the user's default-shell, which may be
            // fish: it only hands a constant script to /bin/sh. The file's
            // path is the plugin's own, of characters no shell reads.
            var respawn = ["respawn-pane", "-k", "-t", target]
            if let directory { respawn += ["-c", plugin.literal(directory, for: .startDirectory, runner: window.runner)] }
            respawn.append("exec /bin/sh -c 'cat \(file.string); rm -f \(file.string); exec \"${SHELL:-/bin/sh}\" -l'")
            commands.append(respawn)
        }
        // Run with the window's layout, with its session's other windows.
        window.commands += commands
        plugin.restore.paneMade(at: path, in: window, target: target, printing: printed)
        return PaneObject(index: window.lastPane)
    }

    /// Writes `text` to a file only the user can read (``OneUseFile``), in
    /// ``TmuxPlugin/runtimeDirectory``, for the pane to print.
    private static func writeContents(_ text: String, plugin: TmuxPlugin) -> FilePath? {
        do {
            guard let directory = plugin.runtimeDirectory else {
                throw OneUseFileError.noRuntimeDirectory
            }
            return try OneUseFile.create(prefix: "restored-tmux-pane", contents: text + "\n", in: directory)
        } catch {
            plugin.context.log("the pane's text is not shown: \(error)", level: .warning)
            return nil
        }
    }
}
