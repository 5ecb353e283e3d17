/// What made restored save or restore an app: shown by `ListApps`, the
/// `AppSaved`/`AppRestored`/`AppFailed` signals and the log.
public enum ActivityTrigger: String, Hashable, Sendable, CaseIterable {
    /// logind's `PrepareForSleep(true)`.
    case sleep
    /// logind's `PrepareForShutdown(true)` or `PrepareForShutdownWithMetadata(true)`.
    case shutdown
    /// The session manager's `EndSession`.
    case logout
    /// SIGTERM, SIGINT or the session manager's `Stop`: restored is stopping.
    case stop
    /// The periodic autosave.
    case autosave
    /// A `Save` or `Restore` call of the admin API (`restored-ctl`).
    case request
    /// The restore when restored starts at login.
    case login
}
