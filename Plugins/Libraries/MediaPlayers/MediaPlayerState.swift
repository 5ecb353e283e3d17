public import PluginToolkit

/// What a player says of itself and of what it plays (MPRIS's
/// `org.mpris.MediaPlayer2` and `.Player` properties): every field a
/// claim, read with accessors that answer nil for a value of another type.
public struct MediaPlayerState: Hashable, Sendable {
    /// Playing, paused or stopped.
    public enum Status: String, Hashable, Sendable {
        case playing = "Playing"
        case paused = "Paused"
        case stopped = "Stopped"
    }

    /// The desktop entry it names (`DesktopEntry`, without `.desktop`).
    public var desktopEntry: String?
    /// Its name for people (`Identity`).
    public var identity: String?
    /// The URL of what it plays (`xesam:url` of `Metadata`).
    public var url: String?
    /// The track's id (`mpris:trackid`), which `SetPosition` names.
    public var trackID: String?
    /// Where it is in the track, in microseconds (`Position`); nil for a
    /// negative one or one past ``SavedMediaPlayer/longestPosition``.
    public var position: Int64?
    /// How long the track is, in microseconds (`mpris:length`), when said
    /// and within the same bounds.
    public var length: Int64?
    /// `PlaybackStatus`.
    public var status: Status?
    /// The URI schemes it opens (`SupportedUriSchemes`).
    public var supportedSchemes: [String]
    /// Whether it may be controlled and seeked (`CanControl`, `CanSeek`).
    public var canControl: Bool
    /// Whether it seeks (`CanSeek`).
    public var canSeek: Bool

    /// The state of the properties `app` and `player` read from a player.
    public init(app: [String: DBusValue], player: [String: DBusValue]) {
        desktopEntry = app["DesktopEntry"]?.stringValue
        identity = app["Identity"]?.stringValue
        supportedSchemes = app["SupportedUriSchemes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let metadata = player["Metadata"]?.stringKeyedValue?.mapValues(\.unwrapped) ?? [:]
        url = metadata["xesam:url"]?.stringValue
        trackID = metadata["mpris:trackid"]?.stringValue
        let bounds: ClosedRange<Int64> = 0 ... SavedMediaPlayer.longestPosition
        position = player["Position"]?.int64Value.flatMap { bounds.contains($0) ? $0 : nil }
        length = (metadata["mpris:length"]?.int64Value ?? metadata["mpris:length"]?.uint64Value.flatMap { Int64(exactly: $0) })
            .flatMap { bounds.contains($0) && $0 > 0 ? $0 : nil }
        status = player["PlaybackStatus"]?.stringValue.flatMap(Status.init(rawValue:))
        canControl = player["CanControl"]?.boolValue ?? false
        canSeek = player["CanSeek"]?.boolValue ?? false
    }
}
