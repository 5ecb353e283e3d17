import Glibc
import ProcFiles

/// One process as `/proc` says it (read through ``ProcProcess``, restored's
/// one reader of `/proc`): its program, whether it lives, its process
/// group, and whether it runs confined the way restored's unit confines
/// restored (a seccomp filter, `NoNewPrivileges`).
struct ProcessRecord: Sendable, CustomStringConvertible {
    /// The pid.
    let pid: Int32

    /// `pid N (program)`.
    var description: String { "pid \(pid) (\(program))" }

    /// The program: the first word of its command line, else its `comm`.
    var program: String {
        if let first = ProcProcess.commandLine(of: pid)?.first, !first.isEmpty { return first }
        let name = ProcFile.text(atPath: "/proc/\(pid)/comm").map { String($0.prefix { $0 != "\n" }) }
        return name ?? "?"
    }

    /// The executable's path (`/proc/PID/exe`), when it can be read.
    var executable: String? { ProcProcess.executable(of: pid) }

    /// Whether it exists and is not a zombie.
    var isAlive: Bool {
        guard Glibc.kill(pid, 0) == 0 || errno == EPERM else { return false }
        return state != "Z"
    }

    /// Its state letter from `/proc/PID/stat`, nil when it is gone.
    var state: String? { ProcProcess.state(of: pid) }

    /// Its process group.
    var processGroup: Int32? { ProcProcess.processGroup(of: pid) }

    /// `Seccomp:` of `/proc/PID/status` (0: none, 2: a filter), or nil.
    var seccomp: Int? { ProcProcess.seccompMode(of: pid) }

    /// `NoNewPrivs:` of `/proc/PID/status`, or nil.
    var noNewPrivileges: Bool? { ProcProcess.hasNoNewPrivileges(pid) }

    /// Every process there is now.
    static func all() -> [ProcessRecord] {
        ProcProcess.all().map { ProcessRecord(pid: $0) }
    }
}
