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
}
