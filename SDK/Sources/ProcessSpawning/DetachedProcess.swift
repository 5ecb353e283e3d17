import CRestoredProcess
public import SystemPackage

/// Starting a program the user keeps, detached from the caller: in a new
/// session, its standard streams on `/dev/null`, no descriptor of the
/// caller, default signals, and reparented away (nothing for the caller to
/// reap). For when no user manager can start it as a unit of its own.
public enum DetachedProcess {
    /// Starts `executable` (an absolute path) with `arguments` (its name
    /// first) and `environment` in `directory` (nil: the caller's); returns
    /// its pid once it has been executed. Throws the `errno` of what failed:
    /// the directory, the exec itself, fork.
    public static func start(
        _ executable: FilePath, arguments: [String], environment: [String: String], directory: FilePath?
    ) throws(Errno) -> Int32 {
        var pid: pid_t = 0
        let error = CStringArray.with(arguments) { argv in
            CStringArray.with(CStringArray.variables(environment)) { envp in
                if let directory {
                    directory.string.withCString { c_restored_process_spawn_detached(executable.string, argv, envp, $0, &pid) }
                } else {
                    c_restored_process_spawn_detached(executable.string, argv, envp, nil, &pid)
                }
            }
        }
        guard error == 0 else { throw Errno(rawValue: error) }
        return pid
    }
}
