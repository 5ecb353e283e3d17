import RestorationKit
import PluginToolkit
import SystemPackage
import FoundationEssentials

/// The restoration class of mpv, the media player: every running mpv that
/// listens on an IPC socket (`--input-ipc-server=PATH`) comes back at the
/// next login playing the same file, at the same position, paused or not,
/// at the same volume and speed, listening on the same socket.
///
/// An example for plugin authors (SDK/README.md), written with the plugin
/// toolkit: it finds the app's instances in the process table
/// (``UserProcess``), asks each over its socket with a deadline
/// (``SocketRequestClient``), carries over an instance that does not answer
/// (``StateCoder/carryOverFromLastArchive()``), and starts the players again
/// as restored's own plugins start apps (``AppLauncher``), waiting for
/// their sockets within the walk (``Waiting``, ``WalkTime``).
///
/// Options (`[io.mpv.Mpv]` in restored.conf): `arguments`, words added to
/// every mpv the plugin starts (like `--no-video --ao=null` for a test, or
/// `--force-window`), since the archive keeps only what the plugin asks:
/// never an option an archive could use to run something (a script).
final class MpvPlugin: RestorationPlugin {
    static let appID = "io.mpv.Mpv"
    static let appVersion = "1"
    static let displayName = "mpv"
    static var restorationClasses: [any RestorationClass.Type] { [PlayerRestoration.self] }
    /// How long one player may take to answer at a save.
    static let answerBudget: Duration = .seconds(2)
    /// How long a restore waits for the players it started to listen.
    static let startBudget: Duration = .seconds(20)

    let context: PluginContext
    let players = PlayersObject()
    let launcher: AppLauncher
    let extraArguments: [String]

    init(context: PluginContext) throws {
        self.context = context
        launcher = AppLauncher(appID: Self.appID, context: context)
        extraArguments = (context.options["arguments"] ?? "").split(separator: " ").map(String.init)
        // The root exists with the app: restoration finds it by path (R8 step 3).
        context.registerObject(players, at: RestorationPath("Players"))
    }

    var rootObjects: [any RestorableObject] { [players] }

    /// R6: reads every running player now.
    func saveDecision(coder: StateCoder) throws -> SaveDecision {
        let running = MpvPlayer.running()
        guard !running.isEmpty else {
            // None runs. In a session that goes on, the user closed them;
            // while it ends, they may be gone before restored asks.
            return context.saveOccasion?.endsSession == true ? .keepLastArchive : .decline
        }
        let deadline = WalkTime.deadline(in: context, atMost: .seconds(10))
        var seen = Set<String>()
        players.players = running.compactMap { player in
            // Two players on one socket: the older one owns it.
            guard seen.insert(player.socket.string).inserted else { return nil }
            let state = player.state(before: min(deadline, .now + Self.answerBudget))
            if state == nil {
                context.log("the mpv on \(player.socket) (pid \(player.process.pid)) did not answer; what it played at the last save is kept", level: .notice)
            }
            return PlayerObject(socket: player.socket, state: state)
        }
        return .save
    }

    /// R7: a restore starts from no player; ``PlayerRestoration`` adds
    /// each saved one (the instance may keep the last save's).
    func shouldRestoreApplicationState(coder: StateCoder) -> Bool {
        players.players = []
        return true
    }

    /// R9: starts every restored player that is not running, then waits,
    /// within the walk, until each listens.
    func restorationDidFinish() {
        let restored = players.players
        players.players = []
        let deadline = WalkTime.deadline(in: context, atMost: Self.startBudget)
        var started: [FilePath] = []
        for player in restored {
            guard let state = player.state else { continue }
            guard !MpvPlayer.answers(on: player.socket, before: min(deadline, .now + .milliseconds(500))) else {
                context.log("an mpv already listens on \(player.socket); it is left as it is")
                continue
            }
            // Saved strings are data: the file must be one, and goes after
            // `--`, so it can never be read as an option.
            guard state.path.hasPrefix("/"), FileManager.default.fileExists(atPath: state.path),
                  state.position.isFinite, state.volume.isFinite, state.speed.isFinite, state.speed > 0 else {
                context.log("not reopened: \(state.path) is no longer a file this plugin can play", level: .warning)
                continue
            }
            let command = ["mpv"] + extraArguments + [
                "--input-ipc-server=\(player.socket.string)",
                "--start=\(max(0, state.position))",
                "--pause=\(state.paused ? "yes" : "no")",
                "--volume=\(state.volume)",
                "--speed=\(state.speed)",
                "--", state.path,
            ]
            do {
                _ = try launcher.launch(command, named: "mpv playing \(state.path)", in: FilePath(state.path).removingLastComponent(), until: deadline)
                started.append(player.socket)
            } catch {
                context.log("not reopened: \(state.path): \(error)", level: .warning)
            }
        }
        for socket in started where !Waiting.forSocket(socket, until: deadline) {
            context.log("the mpv started for \(socket) did not listen before the restore's deadline", level: .warning)
        }
    }
}

@_cdecl("restored_plugin_v1")
public func restoredPluginV1() -> UnsafeRawPointer { PluginExport.descriptor(for: MpvPlugin.self) }
