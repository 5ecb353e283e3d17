import FoundationEssentials
import Glibc
import ProcFiles
public import SystemPackage

/// One of the user's running processes, as `/proc` says: what a plugin
/// reads to find the instances of its app.
public struct UserProcess: Hashable, Sendable {
    /// Its process id.
    public var pid: Int32
    /// Its arguments, its name first (`/proc/PID/cmdline`).
    public var commandLine: [String]
    /// Its executable's path (`/proc/PID/exe`), when readable.
    public var executable: FilePath?
    /// Its working directory (`/proc/PID/cwd`), when readable.
    public var directory: FilePath?
    /// When it started, in clock ticks after boot: with ``pid``, it tells a
    /// process from a later one that got the same pid.
    public var startTime: UInt64

    /// Creates a record.
    public init(pid: Int32, commandLine: [String], executable: FilePath?, directory: FilePath?, startTime: UInt64) {
        self.pid = pid
        self.commandLine = commandLine
        self.executable = executable
        self.directory = directory
        self.startTime = startTime
    }

    /// This process as it is now, if it is still the same one (same pid
    /// and start time) and still the user's.
    public var current: UserProcess? {
        Self.read(pid, proc: "/proc").flatMap { $0.startTime == startTime ? $0 : nil }
    }

    /// The calling user's processes that run `program`: a program name
    /// matches the last component of the executable or of the command
    /// line's first word (`mpv` finds `/usr/bin/mpv` and `mpv`), a path
    /// matches the executable exactly. Oldest first. Other users'
    /// processes are never listed, nor are zombies (no command line).
    public static func running(_ program: String, proc: String = "/proc") -> [UserProcess] {
        all(proc: proc).filter { $0.runs(program) }
    }

    /// Every process of the calling user, oldest first.
    public static func all(proc: String = "/proc") -> [UserProcess] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: proc) else { return [] }
        let uid = getuid()
        return entries.compactMap { Int32($0) }
            .filter { owner(of: $0, proc: proc) == uid }
            .compactMap { read($0, proc: proc) }
            .sorted { ($0.startTime, $0.pid) < ($1.startTime, $1.pid) }
    }

    /// Whether it runs `program` (a name or a path), as ``running(_:proc:)`` says.
    public func runs(_ program: String) -> Bool {
        if program.contains("/") { return executable?.string == program }
        if executable?.lastComponent?.string == program { return true }
        guard let first = commandLine.first else { return false }
        return FilePath(first).lastComponent?.string == program
    }

    /// The record of `pid`; nil when it is gone, a zombie, or another user's.
    static func read(_ pid: Int32, proc: String) -> UserProcess? {
        guard owner(of: pid, proc: proc) == getuid(), let commandLine = ProcProcess.commandLine(of: pid, proc: proc) else { return nil }
        return UserProcess(
            pid: pid, commandLine: commandLine,
            executable: ProcProcess.executable(of: pid, proc: proc).map { FilePath($0) },
            directory: ProcProcess.directory(of: pid, proc: proc).map { FilePath($0) },
            startTime: ProcProcess.startTime(of: pid, proc: proc)
        )
    }

    /// The owner of `/proc/PID` (the process's effective user when it is
    /// dumpable); nil when it is gone.
    private static func owner(of pid: Int32, proc: String) -> uid_t? {
        var status = stat()
        guard stat("\(proc)/\(pid)", &status) == 0 else { return nil }
        return status.st_uid
    }
}
