/// The name of a program as `ps` shows it: the last component of the path
/// it was started by (`/usr/bin/nvim` and `nvim` are both `nvim`).
public enum ProgramName {
    /// The last `/`-separated component of `path`, or `path` itself when it
    /// has none (a path ending in `/` names no program: its whole text).
    public static func of<Text: StringProtocol>(_ path: Text) -> String {
        guard let last = path.split(separator: "/", omittingEmptySubsequences: true).last else { return String(path) }
        return String(last)
    }
}
