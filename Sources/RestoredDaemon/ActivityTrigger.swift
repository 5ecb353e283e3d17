public import RestoredState

/// What made restored save or restore an app: shown by `ListApps`, the
/// `AppSaved`/`AppRestored`/`AppFailed` signals and the log.
public enum ActivityTrigger: String, Hashable, Sendable, CaseIterable {
    /// logind's `PrepareForSleep(true)`.
    case sleep
    /// logind's `PrepareForShutdown(true)` or `PrepareForShutdownWithMetadata(true)`.
    case shutdown
    /// The session ends: the session manager's `EndSession`, or restored
    /// stopped while the user manager or the logind session goes.
    case logout
    /// SIGTERM, SIGINT or the session manager's `Stop` while the session
    /// goes on: restored alone is stopping (an upgrade, a restart).
    case stop
    /// The periodic autosave.
    case autosave
    /// A `Save` or `Restore` call of the admin API (`restored-ctl`).
    case request
    /// The restore when the session starts (for apps of the graphical
    /// session, once the desktop is there).
    case login
    /// The restore when restored starts again while the session runs.
    case recovery

    /// The occasion a plugin is told for a save of this trigger.
    public var saveOccasion: SaveOccasion {
        switch self {
        case .sleep: .suspend
        case .shutdown: .shutdown
        case .logout: .sessionEnd
        case .stop: .daemonStop
        case .autosave: .autosave
        case .request, .login, .recovery: .request
        }
    }

    /// The reason a plugin is told for a restore of this trigger.
    public var restoreReason: RestoreReason {
        switch self {
        case .login: .session
        case .recovery: .recovery
        default: .request
        }
    }
}
