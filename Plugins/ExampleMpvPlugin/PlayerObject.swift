import RestorationKit
import SystemPackage

/// One player: an object per mpv instance, named by its IPC socket, which
/// is what tells instances apart and what a restore listens on again.
final class PlayerObject: RestorableObject {
    var restorationIdentifier: String?
    var restorationClass: (any RestorationClass.Type)? = PlayerRestoration.self
    let socket: FilePath
    /// What it plays; nil at a save when the player did not answer, and
    /// the object is then carried over from the last archive.
    var state: MpvPlayer.State?

    init(socket: FilePath, state: MpvPlayer.State?) {
        self.socket = socket
        self.state = state
        restorationIdentifier = Self.identifier(of: socket)
    }

    func encodeRestorableState(with coder: StateCoder) throws {
        guard let state else {
            // It runs but did not answer in time: what it played when it
            // last answered is still the best there is.
            try coder.carryOverFromLastArchive()
            return
        }
        try coder.encode(state.path, forKey: "path")
        try coder.encode(state.position, forKey: "position")
        try coder.encode(state.paused, forKey: "paused")
        try coder.encode(state.volume, forKey: "volume")
        try coder.encode(state.speed, forKey: "speed")
    }

    func decodeRestorableState(with coder: StateCoder) throws {
        guard let path = try coder.decode(String.self, forKey: "path") else { return }
        state = MpvPlayer.State(
            path: path,
            position: try coder.decode(Double.self, forKey: "position") ?? 0,
            paused: try coder.decode(Bool.self, forKey: "paused") ?? false,
            volume: try coder.decode(Double.self, forKey: "volume") ?? 100,
            speed: try coder.decode(Double.self, forKey: "speed") ?? 1
        )
    }

    /// The socket's path as one path component: `%` and `/` escaped, so
    /// that two sockets never share an identifier (R3).
    static func identifier(of socket: FilePath) -> String {
        var identifier = ""
        for character in socket.string {
            switch character {
            case "%": identifier += "%25"
            case "/": identifier += "%2F"
            default: identifier.append(character)
            }
        }
        return identifier
    }

    /// The socket an identifier names; nil for one ``identifier(of:)`` did
    /// not make.
    static func socket(ofIdentifier identifier: String) -> FilePath? {
        var path = ""
        var rest = Substring(identifier)
        while let percent = rest.firstIndex(of: "%") {
            path += rest[..<percent]
            let code = rest[percent...].prefix(3)
            switch code {
            case "%25": path += "%"
            case "%2F": path += "/"
            default: return nil
            }
            rest = rest[percent...].dropFirst(3)
        }
        path += rest
        return path.hasPrefix("/") ? FilePath(path) : nil
    }
}

/// Recreates each saved player at a restore (R8 step 1) and hands it to
/// the plugin instance, which starts them all once their state is decoded.
enum PlayerRestoration: RestorationClass {
    static func object(withRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        guard let plugin = coder.plugin as? MpvPlugin, let socket = path.last.flatMap(PlayerObject.socket(ofIdentifier:)) else {
            return nil
        }
        let player = PlayerObject(socket: socket, state: nil)
        plugin.players.players.append(player)
        return player
    }
}
