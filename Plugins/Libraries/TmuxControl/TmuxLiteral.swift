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
/// text goes as it is. Targets never expand, but a name in one must be a
/// name tmux could have made (``TmuxName``), and a layout must read as
/// tmux writes it (``TmuxLayout``). An argument that ends in `;` is
/// escaped by ``TmuxRunner/run(commands:)``.
public enum TmuxLiteral {
    /// Where in a command a saved string goes.
    public enum Place: Hashable, Sendable {
        /// A start directory (`-c`).
        case startDirectory
        /// A session's or window's name (`new-session -s`, `rename-session`, `rename-window`).
        case name
        /// A pane's title (`select-pane -T`).
        case title
    }

    /// The first version that expands formats in names and titles.
    public static let namesExpandedSince = TmuxVersion(major: 2, minor: 7)

    /// `text` written for `place` of a command to the tmux of `version`
    /// (nil: unknown, taken as a current tmux), so that tmux keeps it as
    /// it is.
    public static func text(_ text: String, for place: Place, version: TmuxVersion?) -> String {
        switch place {
        case .name, .title:
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
