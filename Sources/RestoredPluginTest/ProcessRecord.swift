import Foundation
import Glibc

/// What `/proc` says of one process: its program, whether it lives, its
/// process group, and whether it runs confined the way restored's unit
/// confines restored (a seccomp filter, `NoNewPrivileges`).
struct ProcessRecord: Sendable, CustomStringConvertible {
    /// The pid.
    let pid: Int32

    /// `pid N (program)`.
    var description: String { "pid \(pid) (\(program))" }

    /// The program: the first word of its command line, else its `comm`.
    var program: String {
        let line = (FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()).split(separator: 0).first
        if let line, !line.isEmpty { return String(decoding: line, as: UTF8.self) }
        let name = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        return name ?? "?"
    }

    /// The executable's path (`/proc/PID/exe`), when it can be read.
    var executable: String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }

    /// Whether it exists and is not a zombie.
    var isAlive: Bool {
        guard Glibc.kill(pid, 0) == 0 || errno == EPERM else { return false }
        return state != "Z"
    }

    /// Its state letter from `/proc/PID/stat`, nil when it is gone.
    var state: String? { statFields?.first }

    /// Its process group.
    var processGroup: Int32? { statFields.flatMap { $0.count > 2 ? Int32($0[2]) : nil } }

    /// `/proc/PID/stat` after the command's name: state, parent, group …
    private var statFields: [String]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").map(String.init)
    }

    /// `Seccomp:` of `/proc/PID/status` (0: none, 2: a filter), or nil.
    var seccomp: Int? { statusField("Seccomp").flatMap { Int($0) } }

    /// `NoNewPrivs:` of `/proc/PID/status`, or nil.
    var noNewPrivileges: Bool? { statusField("NoNewPrivs").map { $0 == "1" } }

    private func statusField(_ name: String) -> String? {
        let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = status?.split(separator: "\n").first { $0.hasPrefix(name + ":") }
        return line.map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
    }

    /// Every process there is now.
    static func all() -> [ProcessRecord] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0).map { ProcessRecord(pid: $0) } }
    }
}
