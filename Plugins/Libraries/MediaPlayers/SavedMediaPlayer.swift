/// What a player held at a save, as the archive keeps it: its entry, what
/// it played, where, and whether it played.
public struct SavedMediaPlayer: Hashable, Sendable {
    /// The longest position kept, in microseconds (a thousand days): a
    /// larger one (a hostile peer's, a corrupt archive's) is no position.
    public static let longestPosition: Int64 = 86_400_000_000_000

    /// Its desktop file id (`mpv.desktop`).
    public var desktopID: String
    /// The URL of what it played, in the form the archive keeps.
    public var url: String
    /// Where it was, in microseconds, within `0 ... longestPosition`.
    public var position: Int64
    /// Whether it played (else it was paused, or stopped with a track).
    public var playing: Bool

    /// A saved player; `position` is clamped to `0 ... longestPosition`.
    public init(desktopID: String, url: String, position: Int64, playing: Bool) {
        self.desktopID = desktopID
        self.url = url
        self.position = min(max(0, position), Self.longestPosition)
        self.playing = playing
    }
}

/// Why a player is not saved: one line, and whether it is worth a notice
/// (a claim that does not hold is; a player with nothing to play is not).
public struct LeftOutMediaPlayer: Error, Hashable, Sendable {
    /// The reason, printable.
    public var reason: String
    /// Whether the log says it as a notice (else at debug level).
    public var isNotable: Bool

    /// A reason.
    public init(reason: String, isNotable: Bool) {
        self.reason = reason
        self.isNotable = isNotable
    }
}
