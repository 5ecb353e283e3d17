import FoundationEssentials
import NeovimControl
import NeovimState
import RestorationKit
import TmuxControl
import TerminalPrograms

/// The state of the Neovim a pane showed, asked from it over its RPC
/// socket at the save (``NeovimSession``) and stored as typed values: its
/// directory, listed files, tab pages with their splits, files, cursors and
/// sizes, and which tab and windows were current.
///
/// At a restore the pane's ``ProgramObject`` has typed `nvim` again; once
/// every pane exists and has its size, the plugin waits for that Neovim's
/// socket and replays the session into it (``TmuxPlugin/replayEditors()``).
/// Nothing in the archive is run: names are API arguments, and only plain
/// absolute paths are opened (R16; ``NeovimSession``).
final class EditorObject: RestorableObject, RestorationClass {
    var restorationIdentifier: String? = "nvim"
    var restorationClass: (any RestorationClass.Type)? = EditorObject.self
    let session: NeovimSession

    init(session: NeovimSession) {
        self.session = session
    }

    /// Asks the Neovim `program` (a pane's foreground nvim) for its state,
    /// all of it answered before `deadline`; nil, with the reason in
    /// `problem`, when it does not answer in time.
    static func read(from program: ForegroundProgram, before deadline: ContinuousClock.Instant, problem: inout String?) -> EditorObject? {
        let sockets = NeovimServer.sockets(ofProcess: program.pid)
        guard !sockets.isEmpty else {
            problem = "nvim \(program.pid) listens on no socket"
            return nil
        }
        do {
            return EditorObject(session: try NeovimSession.read(fromServerAt: sockets, before: deadline))
        } catch {
            problem = "nvim \(program.pid): \(error)"
        }
        return nil
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        let fields = session.stateFields
        for key in NeovimSession.stateKeys {
            if let value = fields[key] { try coder.encode(value, forKey: key) }
        }
    }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? TmuxPlugin, path.components.count == 6, let program = path.parent, let pane = program.parent,
              plugin.restore.programs.contains(program), let target = plugin.restore.panes[pane]
        else { return nil }
        let session: NeovimSession
        do {
            session = try decodeSession(coder)
        } catch {
            plugin.context.log("\(path): the saved Neovim state cannot be read (\(error)); nvim starts as it was typed", level: .warning)
            return nil
        }
        plugin.restore.editorWaits(TmuxRestore.PendingEditor(runner: target.runner, target: target.target, session: session, path: path.description))
        return EditorObject(session: session)
    }

    /// The session stored by ``encodeRestorableState(with:)``.
    private static func decodeSession(_ coder: StateCoder) throws -> NeovimSession {
        var fields: [String: StateValue] = [:]
        for key in NeovimSession.stateKeys { fields[key] = try coder.decodeValue(forKey: key) }
        return try NeovimSession(stateFields: fields)
    }
}
