import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// What `/proc/PID` says of a process, each read in one place for every
/// module that asks (the tmux and session plugins, the Neovim client, the
/// app scanner). Every function takes the `/proc` root, so tests may point
/// it elsewhere, and answers nil (or empty) for a process that is gone.
public enum ProcProcess {
    /// Its arguments, its name first (`cmdline`).
    public static func commandLine(of pid: Int32, proc: String = "/proc") -> [String]? {
        guard let data = ProcFile.contents(atPath: "\(proc)/\(pid)/cmdline"), !data.isEmpty else { return nil }
        return data.split(separator: 0, omittingEmptySubsequences: false).dropLast(data.last == 0 ? 1 : 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Its environment variables whose names start with `prefix` (`environ`).
    public static func environment(of pid: Int32, prefix: String = "", proc: String = "/proc") -> [String: String] {
        var variables: [String: String] = [:]
        for entry in (ProcFile.contents(atPath: "\(proc)/\(pid)/environ") ?? []).split(separator: 0) {
            let text = String(decoding: entry, as: UTF8.self)
            guard text.hasPrefix(prefix), let equals = text.firstIndex(of: "=") else { continue }
            variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        return variables
    }

    /// Whether process `pid` may be one of user `uid`'s, from one `stat`
    /// of its directory (no file read): the directory belongs to the
    /// process's effective user, or to root when the process is not
    /// dumpable (a setuid program, an agent that hides itself). False means
    /// it is certainly another user's, or gone.
    public static func mayBelong(_ pid: Int32, to uid: UInt32, proc: String = "/proc") -> Bool {
        var status = stat()
        guard stat("\(proc)/\(pid)", &status) == 0 else { return false }
        return status.st_uid == uid || status.st_uid == 0
    }

    /// The fields of `stat` after its `(comm)`: state (0), ppid (1), pgrp (2),
    /// session (3), tty (4), tpgid (5), ..., starttime (19).
    public static func statFields(of pid: Int32, proc: String = "/proc") -> [Substring]? {
        guard let stat = ProcFile.text(atPath: "\(proc)/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// When it started, in clock ticks after boot; 0 when unknown.
    public static func startTime(of pid: Int32, proc: String = "/proc") -> UInt64 {
        guard let fields = statFields(of: pid, proc: proc), fields.count > 19 else { return 0 }
        return UInt64(fields[19]) ?? 0
    }

    /// Its children, from every thread's `children` file.
    public static func children(of pid: Int32, proc: String = "/proc") -> [Int32] {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "\(proc)/\(pid)/task") else { return [] }
        return threads.flatMap { thread -> [Int32] in
            (ProcFile.text(atPath: "\(proc)/\(pid)/task/\(thread)/children") ?? "").split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        }
    }

    /// Its executable's path, as it was when it started (an upgrade since
    /// leaves the link marked ` (deleted)`, which is taken off).
    public static func executable(of pid: Int32, proc: String = "/proc") -> String? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(proc)/\(pid)/exe") else { return nil }
        return path.hasSuffix(" (deleted)") ? String(path.dropLast(10)) : path
    }

    /// Its working directory.
    public static func directory(of pid: Int32, proc: String = "/proc") -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "\(proc)/\(pid)/cwd")
    }

    /// Its state letter from `stat` (`R`, `S`, `Z` for a zombie ...); nil
    /// when it is gone.
    public static func state(of pid: Int32, proc: String = "/proc") -> String? {
        statFields(of: pid, proc: proc)?.first.map(String.init)
    }

    /// Its process group, from `stat`.
    public static func processGroup(of pid: Int32, proc: String = "/proc") -> Int32? {
        guard let fields = statFields(of: pid, proc: proc), fields.count > 2 else { return nil }
        return Int32(fields[2])
    }

    /// The value of the line `NAME:` of its `status`, trimmed; nil when
    /// there is none or it is gone.
    public static func status(_ name: String, of pid: Int32, proc: String = "/proc") -> String? {
        let line = ProcFile.text(atPath: "\(proc)/\(pid)/status")?.split(separator: "\n").first { $0.hasPrefix(name + ":") }
        return line.map { line in
            let value = line.dropFirst(name.count + 1).drop(while: \.isWhitespace)
            return String(value.reversed().drop(while: \.isWhitespace).reversed())
        }
    }

    /// Its seccomp mode (`Seccomp:` of `status`: 0 none, 1 strict, 2 a filter).
    public static func seccompMode(of pid: Int32, proc: String = "/proc") -> Int? {
        status("Seccomp", of: pid, proc: proc).flatMap { Int($0) }
    }

    /// Whether it runs with `NoNewPrivs` set (`status`).
    public static func hasNoNewPrivileges(_ pid: Int32, proc: String = "/proc") -> Bool? {
        status("NoNewPrivs", of: pid, proc: proc).map { $0 == "1" }
    }

    /// Every process there is now.
    public static func all(proc: String = "/proc") -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: proc)) ?? []).compactMap { Int32($0) }
    }

    /// Its open descriptors and what each names (`fd/N`'s link: a path,
    /// `socket:[…]`, `pipe:[…]`), by number; empty when it is gone or not
    /// the caller's to read.
    public static func descriptors(of pid: Int32, proc: String = "/proc") -> [Int32: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "\(proc)/\(pid)/fd")) ?? []
        var descriptors: [Int32: String] = [:]
        for name in names {
            guard let number = Int32(name), let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(proc)/\(pid)/fd/\(name)") else { continue }
            descriptors[number] = target
        }
        return descriptors
    }
}
