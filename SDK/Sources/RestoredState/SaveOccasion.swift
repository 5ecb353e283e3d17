/// Why a preservation walk runs, as a plugin is told it
/// (`restored_host_functions.save_occasion`, `PluginContext.saveOccasion`);
/// the raw values are `restored_save_occasion`'s.
///
/// The occasion decides what a decline means: only in a session that goes on
/// does it discard the last archive (R6). When the session ends
/// (``sessionEnd``, ``shutdown``) the apps are being killed around the save,
/// so a save that finds them gone keeps the last archive.
public enum SaveOccasion: UInt32, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// `restored-ctl save`, or the admin API's `Save`.
    case request = 1
    /// The periodic autosave.
    case autosave = 2
    /// Before the machine suspends (logind's `PrepareForSleep`).
    case suspend = 3
    /// Before the machine shuts down or reboots (logind's `PrepareForShutdown`).
    case shutdown = 4
    /// The user's session ends: a logout, or the user manager stopping.
    case sessionEnd = 5
    /// restored stops while the session goes on (an upgrade, `systemctl --user restart restored`).
    case daemonStop = 6

    /// Whether the apps are going away around this save: a decline then
    /// keeps the last archive instead of discarding it (R6).
    public var endsSession: Bool { self == .shutdown || self == .sessionEnd }

    /// The word the log and `restored-ctl` use.
    public var description: String {
        switch self {
        case .request: "request"
        case .autosave: "autosave"
        case .suspend: "suspend"
        case .shutdown: "shutdown"
        case .sessionEnd: "session end"
        case .daemonStop: "restored stopping"
        }
    }
}
