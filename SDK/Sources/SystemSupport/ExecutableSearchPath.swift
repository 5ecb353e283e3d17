#if canImport(Glibc)
import Glibc
#endif

/// Where programs are looked for: the one place that reads a `PATH`.
public enum ExecutableSearchPath {
    /// The search path used without `PATH`: the directories every Debian,
    /// Fedora and Arch system has for the programs restored starts.
    public static let fallback = "/usr/local/bin:/usr/bin:/bin"

    /// `environment`'s `PATH`, or ``fallback`` when it has none.
    public static func of(_ environment: [String: String]) -> String {
        environment["PATH"] ?? fallback
    }

    /// The first executable file named `program` in the absolute
    /// directories of `path` (a `PATH` value), or nil. Relative entries
    /// (an empty one means the current directory) are skipped: what the
    /// current directory holds is no program restored would start.
    public static func executable(named program: String, in path: String) -> String? {
        guard !program.isEmpty, !program.contains("/") else { return nil }
        for directory in path.split(separator: ":") where directory.hasPrefix("/") {
            let candidate = directory.hasSuffix("/") ? "\(directory)\(program)" : "\(directory)/\(program)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
