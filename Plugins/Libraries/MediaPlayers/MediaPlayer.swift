public import PluginToolkit

/// One player on the session bus: the name it is known by, the unique
/// name of the connection that owns it (every call goes there, so no call
/// ever starts a player through D-Bus activation), and that connection's
/// process as the bus knows it.
public struct MediaPlayer: Hashable, Sendable {
    /// MPRIS's object path, the same for every player.
    public static let objectPath = "/org/mpris/MediaPlayer2"
    /// The interface of the player's app (`DesktopEntry`, `Identity` ...).
    public static let appInterface = "org.mpris.MediaPlayer2"
    /// The interface of what it plays.
    public static let playerInterface = "org.mpris.MediaPlayer2.Player"

    /// The name it is known by.
    public var name: MediaPlayerName
    /// The unique name of its connection (`:1.42`).
    public var owner: String
    /// Its process.
    public var pid: Int32

    /// A player.
    public init(name: MediaPlayerName, owner: String, pid: Int32) {
        self.name = name
        self.owner = owner
        self.pid = pid
    }

    /// Every player on `bus`, one per connection (a player that owns two
    /// names is one), in the order of their names; `notApps` included, for
    /// the caller to say why they are left out. A name gone meanwhile is
    /// skipped; a call that finds no answer by `deadline`, or a bus that
    /// went, fails the whole look (a player missed is not a player closed).
    public static func all(on bus: DBusClient, until deadline: ContinuousClock.Instant) throws(DBusError) -> [MediaPlayer] {
        var players: [MediaPlayer] = []
        var owners = Set<String>()
        for busName in try bus.names(startingWith: MediaPlayerName.prefix, until: deadline) {
            guard let name = MediaPlayerName(busName) else { continue }
            do throws(DBusError) {
                guard let owner = try bus.owner(of: busName, until: deadline), owners.insert(owner).inserted else { continue }
                players.append(MediaPlayer(name: name, owner: owner, pid: try bus.processID(of: owner, until: deadline)))
            } catch where error.name == DBusError.noReplyName || error.name == "org.freedesktop.DBus.Error.Disconnected" {
                throw error
            } catch {
                continue
            }
        }
        return players
    }

    /// What it plays, asked by `deadline`.
    public func state(on bus: DBusClient, until deadline: ContinuousClock.Instant) throws(DBusError) -> MediaPlayerState {
        let app = try bus.properties(of: Self.appInterface, at: Self.objectPath, on: owner, until: deadline)
        let player = try bus.properties(of: Self.playerInterface, at: Self.objectPath, on: owner, until: deadline)
        return MediaPlayerState(app: app, player: player)
    }
}
