public import SystemPackage

/// A program to start outside restored, as the user would have started it.
public struct LaunchRequest: Hashable, Sendable {
    /// The unit it runs in when the user manager starts it, like
    /// `app-restored-tmux@3f2a.service` (see ``UnitName``).
    public var unitName: String
    /// What the unit is, for `systemctl --user status`.
    public var description: String
    /// The program and its arguments; the program is looked up in `PATH`
    /// unless it is a path.
    public var command: [String]
    /// Where it starts; the user's home when nil.
    public var workingDirectory: FilePath?
    /// Variables set on top of the user manager's (or, detached, restored's) environment.
    public var environment: [String: String]

    /// Creates a request.
    public init(unitName: String, description: String, command: [String], workingDirectory: FilePath? = nil, environment: [String: String] = [:]) {
        self.unitName = unitName
        self.description = description
        self.command = command
        self.workingDirectory = workingDirectory
        self.environment = environment
    }
}
