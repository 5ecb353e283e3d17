public import RestoredDBus
public import SystemPackage

/// Why a program could not be started, with its cause: callers tell the
/// cases apart by their case. Each says in one line what happened and, where
/// there is one, what to do.
public indirect enum LaunchError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A launch request with an empty command line.
    case noCommand(unit: String)
    /// A program named by a path that is no absolute path to an executable.
    case notAnExecutable(String)
    /// A program found nowhere in the search path.
    case notInstalled(program: String, searchPath: String)
    /// The user manager's job signals could not be followed.
    case cannotFollowJobs(unit: String, DBusError)
    /// The user manager refused `StartTransientUnit`.
    case managerRefused(unit: String, DBusError)
    /// The user manager answered with no job.
    case noJob(unit: String)
    /// The user manager's job did not end within the launch's budget.
    case jobUnfinished(unit: String, within: Duration)
    /// The user manager's job ended with another result than `done`.
    case jobFailed(unit: String, result: String)
    /// A detached start (no user manager) could not be spawned.
    case cannotStartDetached(command: String, Errno)
    /// A desktop entry with no `Exec` while no session bus answers for its activation.
    case noExecNorBus(entry: String)
    /// A desktop entry whose `TryExec` program is not installed.
    case tryExecMissing(entry: String, program: String)
    /// The D-Bus activation of a desktop entry failed.
    case activationFailed(entry: String, busName: String, DBusError)
    /// A launch of a desktop entry failed.
    case entry(String, LaunchError)
    /// What the budget of the launches did not reach.
    case notStartedInBudget(what: String, budget: Duration)

    /// One line.
    public var description: String {
        switch self {
        case .noCommand(let unit): "\(unit): no command to start"
        case .notAnExecutable(let program): "\(program) cannot be run (it must be an absolute path to an executable)"
        case .notInstalled(let program, let path): "\(program) is not installed (not found in PATH=\(path))"
        case .cannotFollowJobs(let unit, let error): "cannot follow the user manager's jobs (\(error.message)); \(unit) is not started"
        case .managerRefused(let unit, let error): "the user manager refused to start \(unit): \(error)"
        case .noJob(let unit): "the user manager gave no job for \(unit)"
        case .jobUnfinished(let unit, let within): "the user manager did not finish starting \(unit) within \(within); see systemctl --user status \(unit)"
        case .jobFailed(let unit, let result): "the user manager could not start \(unit) (\(result)); see journalctl --user -u \(unit)"
        case .cannotStartDetached(let command, let errno): "cannot start \(command) (\(errno)), with no user manager to ask"
        case .noExecNorBus(let entry): "\(entry) has no Exec and no session bus answers for its D-Bus activation"
        case .tryExecMissing(let entry, let program): "\(entry): \(program) (its TryExec) is not installed"
        case .activationFailed(let entry, let name, let error): "\(entry): D-Bus activation of \(name) failed: \(error.message)"
        case .entry(let entry, let cause): "\(entry): \(cause)"
        case .notStartedInBudget(let what, let budget): "\(what) was not started within its budget of \(budget)"
        }
    }
}
