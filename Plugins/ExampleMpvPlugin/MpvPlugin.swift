import RestorationKit
import PluginToolkit
import SystemPackage
import FoundationEssentials
import Glibc

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
            switch player.state(before: min(deadline, .now + Self.answerBudget)) {
            case .playing(let state):
                return PlayerObject(socket: player.socket, state: state)
            case .idle:
                // Nothing to come back: the user closed its file.
                return nil
            case .silent:
                context.log("the mpv on \(player.socket) (pid \(player.process.pid)) did not answer; what it played at the last save is kept", level: .notice)
                return PlayerObject(socket: player.socket, state: nil)
            }
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
            // `--`, so it can never be read as an option; the socket is one
            // mpv may make (it removes what is at that path first).
            guard Self.isRegularFile(state.path) else {
                context.log("not reopened: \(state.path) is no longer a file this plugin can play", level: .warning)
                continue
            }
            guard Self.maySocket(at: player.socket) else {
                context.log("not reopened: \(state.path): \(player.socket) is not a socket path this plugin lets mpv make (something else is there, or its directory is not yours)", level: .warning)
                continue
            }
            let command = ["mpv"] + extraArguments + [
                "--input-ipc-server=\(player.socket.string)",
                "--start=\(Self.plain(state.position, within: 0 ... 1e7))",
                "--pause=\(state.paused ? "yes" : "no")",
                "--volume=\(Self.plain(state.volume, within: 0 ... 1000))",
                "--speed=\(Self.plain(state.speed, within: 0.01 ... 100))",
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

    /// Whether `path` is an absolute path to a regular file (not a device,
    /// not a URL mpv would open).
    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return path.hasPrefix("/") && stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    /// Whether mpv may make its socket at `socket`: nothing there or a
    /// socket already, in a directory of the user's or a sticky one (like
    /// `/tmp`, where only the user's own files can be removed).
    static func maySocket(at socket: FilePath) -> Bool {
        var status = stat()
        if lstat(socket.string, &status) == 0, status.st_mode & S_IFMT != S_IFSOCK { return false }
        var directory = stat()
        guard socket.isAbsolute, stat(socket.removingLastComponent().string, &directory) == 0 else { return false }
        return directory.st_uid == getuid() || directory.st_mode & S_ISVTX != 0
    }

    /// `value` within `range`, rounded to thousandths, written as mpv reads
    /// a number (no exponent).
    static func plain(_ value: Double, within range: ClosedRange<Double>) -> String {
        let kept = value.isFinite ? min(max(value, range.lowerBound), range.upperBound) : range.lowerBound
        let thousandths = Int64((kept * 1000).rounded())
        let sign = thousandths < 0 ? "-" : ""
        let magnitude = thousandths.magnitude
        let fraction = String(magnitude % 1000)
        return "\(sign)\(magnitude / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}

@_cdecl("restored_plugin_v1")
public func restoredPluginV1() -> UnsafeRawPointer { PluginExport.descriptor(for: MpvPlugin.self) }
