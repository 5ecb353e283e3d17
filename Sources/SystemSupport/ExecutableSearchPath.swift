/// Where programs are looked for when the environment names no `PATH`.
public enum ExecutableSearchPath {
    /// The search path used without `PATH`: the directories every Debian,
    /// Fedora and Arch system has for the programs restored starts.
    public static let fallback = "/usr/local/bin:/usr/bin:/bin"

    /// `environment`'s `PATH`, or ``fallback`` when it has none.
    public static func of(_ environment: [String: String]) -> String {
        environment["PATH"] ?? fallback
    }
}
