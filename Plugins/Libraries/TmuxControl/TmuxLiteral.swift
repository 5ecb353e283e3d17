/// The one way a saved string is written into a tmux command, so that tmux
/// takes it as it is.
///
/// tmux expands formats in some arguments: `##` is `#`, `#{...}` a value,
/// and `#(command)` runs a command through the shell. Which arguments, by
/// version (read in tmux's sources, every release from 2.6):
///
/// | argument | expanded |
/// | --- | --- |
/// | `-c` start directory (new-session, new-window, split-window, respawn-pane) | every version |
/// | `select-pane -T` title | 2.7 and later |
/// | `new-session -s`, `rename-session`, `rename-window` names | 2.7 and later |
/// | `new-window -n` | 2.7 to 2.9a and 3.1 and later (not 3.0): never used, a window is named with `rename-window` |
/// | `-t` targets, `select-layout`, `send-keys -l`, shell commands, `-e` | never |
///
/// Where tmux expands, each `#` is written `##`; where it does not, the
/// text goes as it is.
///
/// tmux keeps a window's name, and a session's from 3.2, escaped
/// (`utf8_stravis` with `VIS_OCTAL|VIS_CSTYLE|VIS_TAB|VIS_NL`, read in
/// `window_set_name`, `session_check_name` and 3.7's `clean_name`): a
/// backslash is kept as `\\`, a tab as `\t`, other control characters as
/// octal. A saved name is that kept form, so it goes back unescaped
/// (``TmuxName/unescaped(_:)``) for tmux to escape it again into the same
/// name: given as it was read, every backslash would double at each
/// restore. Targets (`-t =NAME`) take the kept form as it is. Targets never expand, but a name in one must be a
/// name tmux could have made (``TmuxName``), and a layout must read as
/// tmux writes it (``TmuxLayout``). An argument that ends in `;` is
/// escaped by ``TmuxRunner/run(commands:)``.
public enum TmuxLiteral {
    /// Where in a command a saved string goes.
    public enum Place: Hashable, Sendable {
        /// A start directory (`-c`).
        case startDirectory
        /// A session's name (`new-session -s`, `rename-session`), as tmux keeps it.
        case sessionName
        /// A window's name (`rename-window`), as tmux keeps it.
        case windowName
        /// A pane's title (`select-pane -T`).
        case title
    }

    /// The first version that expands formats in names and titles.
    public static let namesExpandedSince = TmuxVersion(major: 2, minor: 7)
    /// The first version that keeps session names escaped (window names are, in every version read).
    public static let sessionNamesEscapedSince = TmuxVersion(major: 3, minor: 2)

    /// `text` written for `place` of a command to the tmux of `version`
    /// (nil: unknown, taken as a current tmux), so that tmux keeps it as
    /// it is.
    public static func text(_ text: String, for place: Place, version: TmuxVersion?) -> String {
        switch place {
        case .windowName:
            let name = TmuxName.unescaped(text)
            if let version, version < namesExpandedSince { return name }
            return escaped(name)
        case .sessionName:
            let name = version.map { $0 < sessionNamesEscapedSince } == true ? text : TmuxName.unescaped(text)
            if let version, version < namesExpandedSince { return name }
            return escaped(name)
        case .title:
            if let version, version < namesExpandedSince { return text }
            return escaped(text)
        case .startDirectory:
            return escaped(text)
        }
    }

    /// Every `#` written `##`.
    static func escaped(_ text: String) -> String {
        guard text.contains("#") else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for character in text {
            if character == "#" { result += "##" } else { result.append(character) }
        }
        return result
    }
}
