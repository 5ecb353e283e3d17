public import SystemPackage

/// Why a short command could not be run to its end, with its cause.
public enum ProgramRunError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The program could not be started (`posix_spawn`, its pipes, or the exec).
    case cannotSpawn(program: String, Errno)
    /// It ran past its time and was killed.
    case timedOut(command: String, after: Duration)

    /// One line.
    public var description: String {
        switch self {
        case .cannotSpawn(let program, let errno): "cannot run \(program) (\(errno))"
        case .timedOut(let command, let after): "\(command) did not finish within \(after) and was killed"
        }
    }
}
