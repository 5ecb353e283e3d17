public import DesktopEntries

/// One app to start again from its desktop entry: where, and with which
/// files or URLs.
public struct DesktopLaunch: Hashable, Sendable {
    /// Its entry.
    public var entry: DesktopEntry
    /// The directory it ran in, used when it still exists.
    public var directory: String?
    /// The files (absolute paths) and URLs it was opened with.
    public var items: [String]
    /// Arguments that replace the entry's `Exec` arguments after its
    /// program (a terminal's own directory and tab options); nil: `Exec`.
    /// Set, the app is started by its program even when D-Bus activatable,
    /// since activation carries no such arguments.
    public var arguments: [String]?

    /// A launch.
    public init(entry: DesktopEntry, directory: String?, items: [String], arguments: [String]? = nil) {
        self.entry = entry
        self.directory = directory
        self.items = items
        self.arguments = arguments
    }
}

/// How a launch went.
public enum DesktopLaunchResult: Hashable, Sendable {
    /// Activated over D-Bus (`org.freedesktop.Application`) at this bus name.
    case activated(busName: String)
    /// Started by the user manager in this unit.
    case unit(String)
    /// Started detached (no user manager), as this process.
    case detached(pid: Int32)
}
