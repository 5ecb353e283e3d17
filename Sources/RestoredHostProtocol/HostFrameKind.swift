/// What a frame holds: requests from restored (below 0x80) and replies from
/// the helper (0x80 and up).
public enum HostFrameKind: UInt8, Sendable {
    /// restored -> helper: load the plugin (its instance is created at the first walk).
    case start = 0x01
    /// restored -> helper: run the preservation walk.
    case save = 0x02
    /// restored -> helper: run the restoration walk over an archive.
    case restore = 0x03
    /// helper -> restored: the plugin is loaded.
    case ready = 0x81
    /// helper -> restored: the plugin was refused.
    case refused = 0x82
    /// helper -> restored: the result of a save.
    case saved = 0x83
    /// helper -> restored: the state is the same as the archive named in the request.
    case unchanged = 0x84
    /// helper -> restored: the report of a restore.
    case restored = 0x85
    /// helper -> restored: written by the signal handler as the helper dies.
    case crashed = 0xEF
}
