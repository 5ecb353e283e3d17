import SystemSupport

/// Why a plugin host could not finish a walk: the helper, not the plugin's
/// answer. Each is reported for its app, with the cause.
public enum PluginHostFault: Error, Hashable, Sendable, CustomStringConvertible {
    /// The helper could not be started.
    case spawnFailed(String)
    /// It died of `signal`, while running the plugin's `callback` when known.
    case crashed(signal: Int32, callback: String?)
    /// It exited by itself with `status` (the plugin called `exit`?).
    case exited(status: Int32)
    /// It did not answer `walk` by its deadline and was killed (SIGKILL).
    case deadlinePassed(walk: String, after: Duration)
    /// It sent something that is not the protocol and was killed.
    case protocolViolation(String)
    /// The plugin crashed too often and is not started until its file changes.
    case quarantined(since: String)
    /// The helper is of a restored version this one cannot speak to: an
    /// upgrade replaced it while restored runs (what was seen, one line).
    case versionMismatch(String)

    /// Whether this is a fault of the helper that counts towards quarantine.
    public var countsTowardsQuarantine: Bool { pluginRan }

    /// Whether the plugin's code ran in the walk that failed: false when
    /// the helper could not be started or the plugin is quarantined.
    public var pluginRan: Bool {
        switch self {
        case .crashed, .exited, .deadlinePassed, .protocolViolation: true
        case .spawnFailed, .quarantined, .versionMismatch: false
        }
    }

    /// One line: what happened to the plugin host.
    public var description: String {
        switch self {
        case .spawnFailed(let reason):
            "its plugin host could not be started: \(reason)"
        case .crashed(let signal, let callback):
            "its plugin host crashed with \(Self.signalName(signal))\(callback.map { " in \($0)" } ?? "")"
        case .exited(let status):
            "its plugin host exited with status \(status) (the plugin ended the process)"
        case .deadlinePassed(let walk, let after):
            "its plugin host did not finish the \(walk) within \(after.formattedSeconds) and was killed"
        case .protocolViolation(let what):
            "its plugin host sent garbage (\(what)) and was killed"
        case .quarantined(let since):
            "its plugin is quarantined (\(since)); fix or rebuild it: a changed file is tried again (restored-ctl plugins)"
        case .versionMismatch(let what):
            "its plugin host is of another restored (\(what)): restored was upgraded while it runs, and restarts into the new version once no save runs"
        }
    }

    /// `SIGSEGV` for 11 and so on.
    public static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE",
            9: "SIGKILL", 11: "SIGSEGV", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM", 24: "SIGXCPU", 25: "SIGXFSZ", 31: "SIGSYS",
        ]
        return names[signal] ?? "signal \(signal)"
    }
}
