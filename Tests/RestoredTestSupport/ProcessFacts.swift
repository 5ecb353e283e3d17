import Foundation

/// What `/proc` says of a process the test did not start itself (one a
/// restore started): its command line, environment and sandbox.
public enum ProcessFacts {
    /// Its arguments, its name first.
    public static func commandLine(of pid: Int32) -> [String] {
        (FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Its environment.
    public static func environment(of pid: Int32) -> [String: String] {
        let data = FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()
        return Dictionary(data.split(separator: 0).compactMap { entry -> (String, String)? in
            let text = String(decoding: entry, as: UTF8.self)
            guard let equals = text.firstIndex(of: "=") else { return nil }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        }, uniquingKeysWith: { first, _ in first })
    }

    /// Its `Seccomp:` mode (0: none, 2: a filter).
    public static func seccomp(of pid: Int32) -> String? {
        let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        return status?.split(separator: "\n").first { $0.hasPrefix("Seccomp:") }.map { $0.dropFirst(8).trimmingCharacters(in: .whitespaces) }
    }

    /// Its state letter from `/proc/PID/stat` (`R`, `S`, `Z` for a zombie
    /// ...), or nil when it is gone.
    public static func state(of pid: Int32) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ").first.map(String.init)
    }

    /// The children of `pid` (every thread's).
    public static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// Every process there is now.
    public static func allProcesses() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
    }
}
