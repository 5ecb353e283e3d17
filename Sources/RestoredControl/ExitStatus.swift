/// The exit statuses of `restored-ctl`, documented in its `--help` and `docs/admin-api.md`.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// It worked (for `doctor` and `verify`: nothing is wrong).
    case success = 0
    /// It failed: an unknown app, a missing archive, a busy app, a refused
    /// call, a check of `doctor` that did not pass.
    case failure = 1
    /// The command line is wrong (an unknown option, an invalid app id).
    case usage = 2
    /// restored is not running, or the session bus cannot be reached.
    case daemonUnreachable = 3
    /// An archive is corrupt (`verify`, `show`, `dump`).
    case corruptArchive = 4
}
