/// Pieces of sway's and i3's command language built from saved text.
public enum WindowManagerCommand {
    /// `name` (a saved workspace or output name) as one double-quoted
    /// argument of a command, or nil when it holds a character that could
    /// end the quotes, the argument or the command: a quote, a backslash, or
    /// any control character (a newline separates commands). Such a name is
    /// not used: the window stays where the window manager put it.
    public static func quoted(_ name: String) -> String? {
        guard !name.isEmpty, !name.contains("\""), !name.contains("\\"),
              !name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F ... 0x9F).contains($0.value) })
        else { return nil }
        return "\"\(name)\""
    }
}
