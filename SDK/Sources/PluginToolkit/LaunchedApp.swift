public import UnitLaunching

/// An app started by ``AppLauncher``: where it runs and its process.
public struct LaunchedApp: Hashable, Sendable {
    /// How it was started: a transient unit of the user manager (outside
    /// restored's sandbox), or detached by the plugin's host (inside it).
    public var result: LaunchResult
    /// Its main process: the unit's `MainPID` (for a `forking` unit, the
    /// daemon the manager follows), or the detached process; nil when the
    /// manager had none to say (a program that already exited).
    public var pid: Int32?

    /// Creates a record.
    public init(result: LaunchResult, pid: Int32?) {
        self.result = result
        self.pid = pid
    }

    /// The transient unit it runs in, when the user manager started it.
    public var unit: String? {
        if case .unit(let name) = result { return name }
        return nil
    }

    /// Whether it runs outside restored's sandbox (seccomp filter,
    /// `NoNewPrivileges`, restored's cgroup), as the user's own programs do.
    public var isOutsideSandbox: Bool { unit != nil }
}
