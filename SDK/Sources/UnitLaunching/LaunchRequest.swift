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
    /// How the program runs: the unit's `Type`.
    public var serviceType: ServiceType

    /// How a launched program runs, as systemd's `Type=` says.
    public enum ServiceType: String, Hashable, Sendable {
        /// It stays in the foreground: the unit lives as long as it does
        /// (`Type=exec`: the launch is done once it was executed).
        case exec
        /// It starts a daemon and exits: the unit lives as long as the
        /// daemon does (`Type=forking`: the launch is done once it exited).
        case forking
    }

    /// Creates a request.
    public init(
        unitName: String, description: String, command: [String], workingDirectory: FilePath? = nil,
        environment: [String: String] = [:], serviceType: ServiceType = .exec
    ) {
        self.unitName = unitName
        self.description = description
        self.command = command
        self.workingDirectory = workingDirectory
        self.environment = environment
        self.serviceType = serviceType
    }
}
