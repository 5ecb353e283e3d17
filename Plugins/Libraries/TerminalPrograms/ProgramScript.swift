import SavedText
public import SystemPackage

/// How a restored pane starts its program again in the pane's own shell,
/// without that shell ever reading a saved string.
///
/// Typing the program's command line into the pane would hand every saved
/// argument to the user's interactive shell and to the terminal's line
/// discipline: a quote means something else in zsh with `RC_QUOTES` or in
/// fish, and a control character in a file name (`^U`, a newline) edits or
/// ends the typed line, so that the rest of the name runs as a command.
/// Instead the arguments go into a one-use script for `/bin/sh`, each one
/// quoted for that shell alone (``SavedText/shellQuoted(_:)``), in a file
/// only the user can read (``OneUseFile``, in `$XDG_RUNTIME_DIR`); what is typed is constant, ` /bin/sh PATH`, with a
/// leading blank so that shells configured to do so keep it out of their
/// history. The script removes itself and `exec`s the program, which so
/// becomes a job of the pane's shell as if typed: job control, the
/// shell's environment, and the shell again when it quits.
public struct ProgramScript: Sendable {
    /// The script's path.
    public let path: FilePath

    /// The line to type into the pane's shell (then Enter): constant text
    /// and ``path``, which ``write(arguments:in:)`` makes of characters no
    /// shell reads.
    public var typedLine: String { " /bin/sh \(path.string)" }

    /// The script's text for `arguments` (a program's, its name first).
    public static func text(for arguments: [String]) -> String {
        "rm -f -- \"$0\"\nexec \(arguments.map(SavedText.shellQuoted).joined(separator: " "))\n"
    }

    /// The script's text for a terminal window that runs it instead of
    /// the user's shell: the program runs as the terminal's foreground job
    /// (`set -m`: a process group of its own, as if typed at a prompt),
    /// then the user's shell takes the window.
    public static func terminalText(for arguments: [String]) -> String {
        "rm -f -- \"$0\"\nset -m\n\(arguments.map(SavedText.shellQuoted).joined(separator: " "))\nexec \"${SHELL:-/bin/sh}\"\n"
    }

    /// The script's text for a terminal window that ran the program alone
    /// (`foot nvim FILE`, a `Terminal=true` entry): the program runs as the
    /// window's foreground job, and the window closes when it quits.
    public static func commandText(for arguments: [String]) -> String {
        "rm -f -- \"$0\"\nset -m\n\(arguments.map(SavedText.shellQuoted).joined(separator: " "))\n"
    }

    /// The file names of the scripts of windows that run their program
    /// alone (``commandText(for:)``) begin so.
    public static let commandPrefix = "restored-terminal-command"

    /// Whether `arguments` (a process's command line) are a window's
    /// script of ``commandText(for:)``: the window runs its program alone.
    public static func isCommandScript(_ arguments: [String]) -> Bool {
        arguments.count == 2 && arguments[0] == "/bin/sh" && FilePath(arguments[1]).lastComponent?.string.hasPrefix(commandPrefix + "-") == true
    }

    /// The command a terminal window runs the script with.
    public var terminalCommand: [String] { ["/bin/sh", path.string] }

    /// Writes the script that runs `arguments` in `directory` (an absolute
    /// path of plain characters, ``SavedText/isTypable(_:)``): typed into a
    /// tmux pane's shell, or (`forTerminal`) run by a terminal window
    /// instead of its shell, then the user's shell (or, `alone`, nothing:
    /// the window closes with the program).
    public static func write(arguments: [String], in directory: FilePath, forTerminal: Bool = false, alone: Bool = false) throws(OneUseFileError) -> ProgramScript {
        guard !arguments.isEmpty, arguments.allSatisfy({ !$0.contains("\0") }) else {
            throw .invalidCommandLine
        }
        let (text, prefix) = switch (forTerminal, alone) {
        case (false, _): (text(for: arguments), "restored-tmux-program")
        case (true, false): (terminalText(for: arguments), "restored-terminal-program")
        case (true, true): (commandText(for: arguments), commandPrefix)
        }
        return ProgramScript(path: try OneUseFile.create(prefix: prefix, contents: text, in: directory))
    }
}
