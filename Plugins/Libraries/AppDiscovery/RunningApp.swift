/// One running instance of an app of the session: the main process of a
/// launch, found without the app's help.
public struct RunningApp: Hashable, Sendable {
    /// How the process was tied to its desktop entry, most precise first.
    public enum Evidence: String, Hashable, Sendable {
        /// Its systemd unit, named as `DESKTOP_ENVIRONMENTS.md` says.
        case unit
        /// `GIO_LAUNCHED_DESKTOP_FILE` with its `_PID`, set by the GIO launcher.
        case launcherEnvironment
        /// Its executable, against the entries' `TryExec` and `Exec`.
        case executable
    }

    /// The desktop file id of its entry (`org.gnome.Terminal.desktop`).
    public var desktopID: String
    /// The main process.
    public var pid: Int32
    /// Its working directory, when it can be read.
    public var directory: String?
    /// Its command line.
    public var commandLine: [String]
    /// The files (absolute paths that exist) and URLs it was opened with,
    /// where its entry's `Exec` takes them.
    public var openedItems: [String]
    /// The unit it runs in, when it has one of the scheme.
    public var unit: String?
    /// How it was found.
    public var evidence: Evidence
    /// When it started, in clock ticks after boot (`/proc/PID/stat`): the
    /// order instances are relaunched in.
    public var startTime: UInt64

    /// An instance.
    public init(desktopID: String, pid: Int32, directory: String?, commandLine: [String], openedItems: [String], unit: String?, evidence: Evidence, startTime: UInt64) {
        self.desktopID = desktopID
        self.pid = pid
        self.directory = directory
        self.commandLine = commandLine
        self.openedItems = openedItems
        self.unit = unit
        self.evidence = evidence
        self.startTime = startTime
    }
}
