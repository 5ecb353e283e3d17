/// Which programs a restored pane starts again: an allow-list of programs
/// that show state and are safe to run again (editors, pagers, monitors,
/// remote shells, database shells). Anything else gets a shell in the
/// pane's directory: a restore never runs again an arbitrary command (a
/// build, a deploy, `rm`).
///
/// The archive's arguments are passed to the program as they were, quoted
/// for the shell, never interpreted: the list decides *which* program runs,
/// and that decision is made again at restore, against this list, never
/// taken from the archive (R16).
public struct ProgramPolicy: Hashable, Sendable {
    /// The programs allowed, by name.
    public var programs: Set<String>

    /// The default list: the editors vi, vim, nvim, emacs (in the terminal),
    /// nano; the pagers less, more, man; top, htop, btop; `tail -f`; ssh and
    /// mosh; sqlite3, psql, mysql.
    public static let defaultPrograms: Set<String> = [
        "vi", "vim", "nvim", "emacs", "nano", "less", "more", "man", "top", "htop", "btop", "tail", "ssh", "mosh",
        "sqlite3", "psql", "mysql",
    ]

    /// A policy allowing `programs` (the default list when nil).
    public init(programs: Set<String>? = nil) {
        self.programs = programs ?? Self.defaultPrograms
    }

    /// A policy from the plugin option `programs` (names separated by
    /// blanks or commas; `+name` adds to the default list, a plain list
    /// replaces it).
    public init(option: String?) {
        guard let option else {
            self.init()
            return
        }
        let names = option.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }).map(String.init)
        if !names.isEmpty, names.allSatisfy({ $0.hasPrefix("+") }) {
            self.init(programs: Self.defaultPrograms.union(names.map { String($0.dropFirst()) }))
        } else {
            self.init(programs: Set(names))
        }
    }

    /// Whether `arguments` (a program's, its name first) may be run again:
    /// its name is on the list, and for `tail` only when it follows a file,
    /// for `emacs` only in the terminal.
    public func allows(_ arguments: [String]) -> Bool {
        guard let first = arguments.first else { return false }
        let name = ForegroundProgram.baseName(first)
        guard programs.contains(name) else { return false }
        let options = arguments.dropFirst()
        switch name {
        case "tail":
            return options.contains { $0 == "-f" || $0 == "-F" || $0 == "--follow" || $0.hasPrefix("--follow=") || ($0.hasPrefix("-") && !$0.hasPrefix("--") && $0.contains("f")) }
        case "emacs":
            return options.contains { $0 == "-nw" || $0 == "--no-window-system" || $0 == "-t" || $0 == "--tty" }
        default:
            return true
        }
    }
}
