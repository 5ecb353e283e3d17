/// A name on the session bus under MPRIS's prefix
/// (`org.mpris.MediaPlayer2.vlc`, `org.mpris.MediaPlayer2.mpv.instance4242`),
/// and whether what owns it is a player restored brings back.
public struct MediaPlayerName: Hashable, Sendable {
    /// MPRIS's prefix of every player's name.
    public static let prefix = "org.mpris.MediaPlayer2."

    /// The whole name.
    public var busName: String
    /// Its first part after the prefix (`vlc`, `mpv`, `firefox`).
    public var player: String

    /// The name of `busName`, nil when it is not under MPRIS's prefix.
    public init?(_ busName: String) {
        guard busName.hasPrefix(Self.prefix) else { return nil }
        let rest = busName.dropFirst(Self.prefix.count)
        guard let player = rest.split(separator: ".", omittingEmptySubsequences: false).first, !player.isEmpty else { return nil }
        self.busName = busName
        self.player = String(player)
    }

    /// Players that are no app to reopen, by the first part of their name:
    /// a browser's tabs (`firefox.instance_1_23`, `chromium.instance42`)
    /// come back with the browser's own session; proxies (`playerctld`)
    /// stand for another player; a phone's players reached through KDE
    /// Connect or GSConnect, and browser integrations, play elsewhere.
    public static let notApps: [String: String] = [
        "firefox": "a web browser's tabs (they come back with the browser's own session)",
        "chromium": "a web browser's tabs (they come back with the browser's own session)",
        "chrome": "a web browser's tabs (they come back with the browser's own session)",
        "brave": "a web browser's tabs (they come back with the browser's own session)",
        "vivaldi": "a web browser's tabs (they come back with the browser's own session)",
        "opera": "a web browser's tabs (they come back with the browser's own session)",
        "edge": "a web browser's tabs (they come back with the browser's own session)",
        "msedge": "a web browser's tabs (they come back with the browser's own session)",
        "epiphany": "a web browser's tabs (they come back with the browser's own session)",
        "plasma-browser-integration": "a browser integration (it stands for a browser's tabs)",
        "playerctld": "a proxy (it stands for another player)",
        "kdeconnect": "a phone's player, through KDE Connect",
        "GSConnect": "a phone's player, through GSConnect",
        "gsconnect": "a phone's player, through GSConnect",
    ]

    /// Why what owns this name is no app to reopen; nil for a player.
    public var notAppReason: String? {
        if let reason = Self.notApps[player] { return reason }
        // GSConnect's names carry the device after its own prefix.
        if player.hasPrefix("GSConnect") || player.hasPrefix("kdeconnect") { return "a phone's player" }
        return nil
    }
}
