/// Why a restoration walk runs, as a plugin is told it
/// (`restored_host_functions.restore_reason`, `PluginContext.restoreReason`),
/// in the sense of GTK's `GtkRestoreReason` and the Wayland session protocol;
/// the raw values are `restored_restore_reason`'s.
public enum RestoreReason: UInt32, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The session starts: a login after a logout, a reboot or a power loss.
    /// The apps are not running.
    case session = 1
    /// restored started again while the session runs (after a crash, an
    /// upgrade): the apps are live. Nothing is restored into them unless the
    /// plugin says it restores into a running app.
    case recovery = 2
    /// `restored-ctl restore`: the user asked for it.
    case request = 3

    /// The word the log and `restored-ctl` use.
    public var description: String {
        switch self {
        case .session: "session"
        case .recovery: "recovery"
        case .request: "request"
        }
    }
}
