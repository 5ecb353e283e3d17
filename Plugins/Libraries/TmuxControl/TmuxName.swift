import SavedText

/// Which names tmux itself would have written, so that a name read from an
/// archive is used in a target (`-t =NAME:`) or a socket path only when it
/// means there exactly what it meant at the save.
public enum TmuxName {
    /// Whether `name` is a session name as tmux keeps them: not empty, no
    /// `:` or `.` (tmux writes both `_`, and a target would read them as
    /// separators) and no control character (tmux writes those as octal
    /// escapes). Any other name did not come from tmux.
    public static func isSessionName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains(":") && !name.contains(".") && SavedText.isPrintable(name)
    }

    /// Whether `name` is a server's socket name in the user's socket
    /// directory: not empty, not `.` or `..`, no `/` and no control
    /// character.
    public static func isServerName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && SavedText.isPrintable(name)
    }
}
