#if canImport(Glibc)
import Glibc
#endif

/// The directories of the XDG Base Directory Specification for one
/// environment: the one place restored and its plugins read `HOME` and the
/// `XDG_*` variables.
///
/// As the specification says, a variable that is unset, empty or not an
/// absolute path is ignored: its default is used (a relative path would
/// depend on the directory restored happens to run in). In a list
/// (`XDG_CONFIG_DIRS`, `XDG_DATA_DIRS`) relative entries are dropped, and a
/// list left with none is its default.
public struct XDGBaseDirectories: Hashable, Sendable {
    /// The user's home: `HOME` when absolute, else the password database's,
    /// else `/`.
    public let home: String
    private let environment: [String: String]

    /// The directories of `environment`.
    public init(environment: [String: String]) {
        self.environment = environment
        home = Self.absolute(environment["HOME"]) ?? Self.passwordHome() ?? "/"
    }

    /// `XDG_CONFIG_HOME`, by default `~/.config`.
    public var configHome: String { Self.absolute(environment["XDG_CONFIG_HOME"]) ?? joined(home, ".config") }
    /// `XDG_DATA_HOME`, by default `~/.local/share`.
    public var dataHome: String { Self.absolute(environment["XDG_DATA_HOME"]) ?? joined(home, ".local/share") }
    /// `XDG_STATE_HOME`, by default `~/.local/state`.
    public var stateHome: String { Self.absolute(environment["XDG_STATE_HOME"]) ?? joined(home, ".local/state") }
    /// `XDG_CONFIG_DIRS`, the most important first; by default `/etc/xdg`.
    public var configDirectories: [String] { Self.list(environment["XDG_CONFIG_DIRS"]) ?? ["/etc/xdg"] }
    /// `XDG_DATA_DIRS`, the most important first; by default
    /// `/usr/local/share` and `/usr/share`.
    public var dataDirectories: [String] { Self.list(environment["XDG_DATA_DIRS"]) ?? ["/usr/local/share", "/usr/share"] }
    /// `XDG_RUNTIME_DIR`: the user's directory that lives as long as their
    /// session, readable by them alone. Nil when unset or not absolute: the
    /// specification gives it no default.
    public var runtimeDirectory: String? { Self.absolute(environment["XDG_RUNTIME_DIR"]) }

    private func joined(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    private static func absolute(_ value: String?) -> String? {
        guard let value, value.hasPrefix("/") else { return nil }
        return value
    }

    private static func list(_ value: String?) -> [String]? {
        let entries = (value ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return entries.isEmpty ? nil : entries
    }

    private static func passwordHome() -> String? {
        var buffer = [CChar](repeating: 0, count: 16384)
        let path: String? = buffer.withUnsafeMutableBufferPointer { storage in
            guard let base = storage.baseAddress else { return nil }
            var entry = passwd()
            var result: UnsafeMutablePointer<passwd>?
            let status = getpwuid_r(geteuid(), &entry, base, storage.count, &result)
            guard status == 0, result != nil, let home = entry.pw_dir else { return nil }
            return String(cString: home)
        }
        return absolute(path)
    }
}
