import AppLaunching
import DesktopEntries
import FoundationEssentials
import MediaPlayers
import PluginToolkit
import ProcFiles
import RestorationKit
import SystemSupport

@_cdecl("restored_plugin_v1")
public func restoredPluginV1() -> UnsafeRawPointer {
    PluginExport.descriptor(for: MediaPlayersPlugin.self)
}

/// The restoration class of every media player that speaks MPRIS
/// (`org.mpris.MediaPlayer2.*` on the session bus): each comes back at the
/// next login with the same track or file, at the same position, playing
/// or paused as it was (docs/apps.md, "Media players").
///
/// The session plugin, when it is loaded, reopens the player's app and
/// places its window, without the files it had open; this plugin then
/// hands the player its track once its name appears. Without the session
/// plugin, this plugin starts the player itself from its desktop entry.
/// Either way one plugin starts it: never two launches.
final class MediaPlayersPlugin: RestorationPlugin {
    static let appID = "org.restored.MediaPlayers"
    static let appVersion = "1"
    static let displayName = "Media players"
    static var restorationClasses: [any RestorationClass.Type] { [PlayerObject.self] }
    static var traits: PluginTraits { [.needsGraphicalSession] }
    /// The session plugin's app id: loaded, it starts the players.
    static let sessionAppID = "org.restored.Session"
    /// How long one player may take to answer at a save.
    static let answerBudget = Duration.seconds(2)

    let context: PluginContext
    let environment: [String: String]
    /// Where an entry's program is looked for (the host's `PATH`).
    let searchPath: String
    let players = PlayersObject()
    /// Whether URLs keep their queries, credentials and fragments.
    let keepsURLQueries: Bool
    /// Whether the session plugin is loaded (it then starts the players).
    let sessionPluginStartsPlayers: Bool
    private var entries = DesktopEntryIndex(directories: [])
    private var entriesRead = false
    /// The players of the last save, by process and its start time: one
    /// that does not answer now is carried over under the same identifier.
    private var lastSaved: [ProcessKey: (desktopID: String, copy: Int)] = [:]

    struct ProcessKey: Hashable {
        var pid: Int32
        var startTime: UInt64
    }

    init(context: PluginContext) throws {
        self.context = context
        environment = ProcessInfo.processInfo.environment
        searchPath = ExecutableSearchPath.of(environment)
        keepsURLQueries = OptionList.isOn(context.options[DesktopAppLauncher.keepURLQueriesOption])
        sessionPluginStartsPlayers = OptionList.names(context.options["restored.apps"]).contains(Self.sessionAppID)
        context.registerObject(players, at: RestorationPath("Players"))
    }

    var rootObjects: [any RestorableObject] { [players] }

    /// The installed desktop entries, read again when they changed.
    func currentEntries() -> DesktopEntryIndex {
        if !entriesRead || !entries.isCurrent {
            entries = DesktopEntryIndex(environment: environment)
            entriesRead = true
        }
        return entries
    }

    // MARK: Saving

    /// R6: every player on the bus, read now.
    func saveDecision(coder: StateCoder) throws -> SaveDecision {
        let deadline = WalkTime.deadline(in: context, atMost: .seconds(10))
        let bus = try DBusClient.connect(until: deadline)
        defer { bus.close() }
        let entries = currentEntries()
        var found: [(key: ProcessKey, desktopID: String, saved: SavedMediaPlayer?)] = []
        for player in try MediaPlayer.all(on: bus, until: deadline) {
            if let reason = player.name.notAppReason {
                context.log("\(player.name.busName) is left out: \(reason)", level: .debug)
                continue
            }
            let key = ProcessKey(pid: player.pid, startTime: ProcProcess.startTime(of: player.pid))
            guard let state = try? player.state(on: bus, until: min(deadline, .now + Self.answerBudget)) else {
                // Carried over under the identifier it had (this plugin
                // host saw it answer); one never seen answering is left
                // out, since nothing it says can be trusted to name it.
                if let last = lastSaved[key] {
                    context.log("\(player.name.busName) (pid \(player.pid)) did not answer; what it played at the last save is kept", level: .notice)
                    found.append((key, last.desktopID, nil))
                } else {
                    context.log("\(player.name.busName) (pid \(player.pid)) did not answer, and was not saved before: it is left out", level: .notice)
                }
                continue
            }
            switch MediaPlayerPolicy.saved(state, of: player, entries: entries, searchPath: searchPath, keepingQueries: keepsURLQueries) {
            case .success(let saved):
                found.append((key, saved.desktopID, saved))
            case .failure(let leftOut):
                context.log("\(player.name.busName) (pid \(player.pid)) is left out: \(leftOut.reason)", level: leftOut.isNotable ? .notice : .debug)
            }
        }
        if found.isEmpty {
            // None plays. In a session that goes on, the user closed them;
            // while it ends, they may be gone before restored asks.
            return context.saveOccasion?.endsSession == true ? .keepLastArchive : .decline
        }
        if context.saveOccasion?.endsSession == true, found.count < lastSaved.count {
            context.log("\(lastSaved.count - found.count) of the players of the last save closed while the session ends: keeping the last archive")
            return .keepLastArchive
        }
        // Identity: the entry, and the order among its players by start
        // time. A carried player keeps its number, so that what the last
        // archive holds under it is its own; the others take the free ones.
        var taken: [String: Set<Int>] = [:]
        for player in found where player.saved == nil {
            if let copy = lastSaved[player.key]?.copy { taken[player.desktopID, default: []].insert(copy) }
        }
        var saved: [ProcessKey: (desktopID: String, copy: Int)] = [:]
        var next: [String: Int] = [:]
        players.players = found.sorted { ($0.key.startTime, $0.key.pid) < ($1.key.startTime, $1.key.pid) }.map { player in
            var copy: Int
            if player.saved == nil, let kept = lastSaved[player.key]?.copy {
                copy = kept
            } else {
                copy = next[player.desktopID, default: 1]
                while taken[player.desktopID, default: []].contains(copy) { copy += 1 }
                taken[player.desktopID, default: []].insert(copy)
                next[player.desktopID] = copy + 1
            }
            saved[player.key] = (player.desktopID, copy)
            return PlayerObject(desktopID: player.desktopID, copy: copy, saved: player.saved)
        }
        lastSaved = saved
        return .save
    }

    // MARK: Restoring

    /// R7: a restore starts from no player; ``PlayerObject`` adds each
    /// saved one (the instance may keep the last save's).
    func shouldRestoreApplicationState(coder: StateCoder) -> Bool {
        players.players = []
        return true
    }

    /// R9: hands every saved player its track once the player is there.
    func restorationDidFinish() {
        let restored = players.players
        players.players = []
        guard restored.contains(where: { $0.saved != nil }) else { return }
        let deadline = WalkTime.deadline(in: context, atMost: .seconds(60))
        let restore = PlayerRestore(
            context: context, entries: currentEntries(), startsPlayers: !sessionPluginStartsPlayers,
            launcher: AppLauncher(appID: Self.appID, context: context), searchPath: searchPath
        )
        restore.run(restored, until: deadline)
    }
}
