/// The rules a saved string follows before it meets an interpreter: a shell,
/// tmux, Neovim, a terminal's line discipline, a program's options.
///
/// Text in an archive came from places nobody vouches for: a pane title
/// that any program sets with an escape sequence, a file name from a
/// download, a window name, or the archive file itself. So every plugin
/// treats it as data: it reaches a program as one `argv` element, an API
/// argument or a quoted word of a constant script, never as code, and
/// text with control characters (which a terminal or a line editor acts
/// on) is refused where it would be typed or shown. `docs/security.md`
/// lists every place a saved string meets an
/// interpreter and what keeps it inert there.
public enum SavedText {
    /// Whether `text` holds no control character: no C0 control (NUL,
    /// newline, escape ...), no DEL and no C1 control (U+0080 to U+009F,
    /// which some terminals read as CSI and OSC).
    public static func isPrintable(_ text: some StringProtocol) -> Bool {
        !text.unicodeScalars.contains(where: isControl)
    }

    /// Whether `scalar` is a C0 control, DEL or a C1 control.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F ... 0x9F).contains(scalar.value)
    }

    /// `text` with every control character (``isControl(_:)``) removed:
    /// for a title or a name that is shown, never run.
    public static func printable(_ text: String) -> String {
        isPrintable(text) ? text : String(String.UnicodeScalarView(text.unicodeScalars.filter { !isControl($0) }))
    }

    /// Whether `path` is an absolute path a program takes as a plain file
    /// name: it starts with `/`, holds no `://` (which Neovim and others
    /// open through a handler that starts programs) and no control
    /// character.
    public static func isPlainAbsolutePath(_ path: String) -> Bool {
        path.hasPrefix("/") && !path.contains("://") && isPrintable(path)
    }

    /// `argument` as one word for `/bin/sh` (POSIX): plain words as they
    /// are, anything else in single quotes, each quote inside written
    /// `'\''`. Meant for scripts that `/bin/sh` reads, never for a line
    /// typed into the user's interactive shell, whose quoting rules (zsh's
    /// `RC_QUOTES`, fish's backslashes in quotes) and line editor differ.
    public static func shellQuoted(_ argument: String) -> String {
        if !argument.isEmpty, argument.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0)) }) {
            return argument
        }
        var quoted = "'"
        for character in argument {
            quoted += character == "'" ? "'\\''" : String(character)
        }
        return quoted + "'"
    }

    /// Whether `word` may be typed into any interactive shell as it is:
    /// ASCII letters, digits and `/._-` only, so no shell, line editor or
    /// terminal reads anything in it.
    public static func isTypable(_ word: String) -> Bool {
        !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "a" ... "z", "A" ... "Z", "0" ... "9", "/", ".", "_", "-": true
            default: false
            }
        }
    }
}
