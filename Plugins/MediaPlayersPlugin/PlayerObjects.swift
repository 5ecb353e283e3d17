import MediaPlayers
import RestorationKit


/// The root: one child per player.
final class PlayersObject: RestorableObject {
    var restorationIdentifier: String? = "Players"
    var restorationClass: (any RestorationClass.Type)?
    var players: [PlayerObject] = []
    var restorationChildren: [any RestorableObject] { players }
}

/// One player, known by its desktop entry and its order among that
/// entry's players (by the time its process started): `mpv.desktop#2`.
/// Its bus name carries a process id and says nothing across a logout.
final class PlayerObject: RestorableObject, RestorationClass {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)? = PlayerObject.self
    /// What it held; nil for one that ran and did not answer (carried over
    /// from the last archive) and for one being restored, until decoded.
    var saved: SavedMediaPlayer?
    let desktopID: String
    let copy: Int

    init(desktopID: String, copy: Int, saved: SavedMediaPlayer?) {
        self.desktopID = desktopID
        self.copy = copy
        self.saved = saved
        restorationIdentifier = Self.identifier(desktopID: desktopID, copy: copy)
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        guard let saved else {
            // It owns its name but did not answer: what it played when it
            // last answered is still the best there is.
            try coder.carryOverFromLastArchive()
            return
        }
        try coder.encode(saved.url, forKey: "url")
        try coder.encode(saved.position, forKey: "position")
        try coder.encode(saved.playing, forKey: "playing")
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        guard let url = try coder.decode(String.self, forKey: "url") else { return }
        saved = SavedMediaPlayer(
            desktopID: desktopID, url: url,
            position: try coder.decode(Int64.self, forKey: "position") ?? 0,
            playing: try coder.decode(Bool.self, forKey: "playing") ?? false
        )
    }

    /// `mpv.desktop#2`: a desktop file id has no `#` (`MediaPlayerPolicy/desktopID(claimed:)`).
    static func identifier(desktopID: String, copy: Int) -> String {
        "\(desktopID)#\(copy)"
    }

    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? MediaPlayersPlugin, path.components.count == 2, let identifier = path.last else { return nil }
        let parts = identifier.split(separator: "#")
        let desktopID = parts.first.map(String.init) ?? ""
        guard parts.count == 2, let copy = Int(parts[1]), copy >= 1, MediaPlayerPolicy.desktopID(claimed: desktopID) == desktopID else { return nil }
        let player = PlayerObject(desktopID: desktopID, copy: copy, saved: nil)
        plugin.players.players.append(player)
        return player
    }
}
