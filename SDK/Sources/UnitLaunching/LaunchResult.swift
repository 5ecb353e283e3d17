/// How a program was started.
public enum LaunchResult: Hashable, Sendable {
    /// By the user's service manager, as a transient unit of that name: an
    /// ordinary user process, in none of restored's sandbox.
    case unit(String)
    /// By restored itself, detached (a new session, reparented away): used
    /// when no user manager answers. It keeps restored's sandbox (seccomp
    /// filter, no new privileges) and cgroup.
    case detached(pid: Int32)
}
