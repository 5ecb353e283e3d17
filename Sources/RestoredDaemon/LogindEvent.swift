/// What logind says about the machine's power state.
public enum LogindEvent: Sendable, Hashable {
    /// `PrepareForSleep`: true before suspend, false after resume.
    case prepareForSleep(Bool)
    /// `PrepareForShutdown` or `PrepareForShutdownWithMetadata`: true before
    /// power-off or reboot, false when it was cancelled.
    case prepareForShutdown(Bool)
    /// logind's bus name has a new owner: logind restarted, locks are gone.
    case restarted
    /// logind left the bus.
    case vanished
}
