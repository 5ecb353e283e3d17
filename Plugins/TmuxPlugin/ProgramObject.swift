import FoundationEssentials
import RestorationKit
import TmuxControl
import TerminalPrograms

/// The program a pane showed, when it is on the allow-list: started again
/// in the pane's shell, with its arguments, as if typed, once every pane
/// has its final size.
///
/// Which program may run is decided again at restore against the plugin's
/// allow-list, with only the arguments ``ProgramPolicy/command(for:)``
/// keeps, never taken from the archive (R16); the pane's shell starts it
/// through a one-use script (``ProgramScript``), so that neither the
/// shell nor the terminal reads any of its arguments. A Neovim's own state
/// is its child, ``EditorObject``.
final class ProgramObject: RestorableObject, RestorationClass {
    var restorationIdentifier: String? = "program"
    var restorationClass: (any RestorationClass.Type)? = ProgramObject.self
    let arguments: [String]
    /// The state of the Neovim it is, when it is one that answered.
    private let editor: EditorObject?

    var restorationChildren: [any RestorableObject] { editor.map { [$0] } ?? [] }

    init(arguments: [String], editor: EditorObject? = nil) {
        self.arguments = arguments
        self.editor = editor
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        try coder.encode(arguments, forKey: "arguments")
    }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? TmuxPlugin, path.components.count == 5, let parent = path.parent,
              let pane = plugin.restore.panes[parent],
              let arguments = (try? coder.decode([String].self, forKey: "arguments")) ?? nil
        else { return nil }
        // The archive's command line is filtered again (R16): a program off
        // the list, or an argument that would run code, never comes from it.
        guard let command = plugin.policy.command(for: arguments) else {
            plugin.context.log("\(parent): \(arguments.first ?? "") is not on the allow-list: the pane gets a shell", level: .info)
            return nil
        }
        // Typed once every window has its layout (``TmuxPlugin/typePrograms()``):
        // a program started before its pane's last resize may miss it.
        plugin.restore.programTyped(at: path, TmuxRestore.PendingProgram(runner: pane.runner, target: pane.target, arguments: command, path: parent.description))
        return ProgramObject(arguments: command)
    }
}
