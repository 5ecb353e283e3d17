import SavedText
import SystemSupport

/// Which programs a restored pane starts again: an allow-list of programs
/// that show state and are safe to run again (editors, pagers, monitors,
/// remote shells, database shells). Anything else gets a shell in the
/// pane's directory: a restore never runs again an arbitrary command (a
/// build, a deploy, `rm`).
///
/// The list decides *which* program runs, and ``command(for:)`` which of
/// its arguments come back: the program by its name (found in `PATH`,
/// never a saved path), and for each program of the default list only the
/// arguments that name what it shows (files, a page, a host, a database),
/// never an option that runs code (`vim +!cmd`, `less +!cmd`,
/// `ssh -o ProxyCommand=`, `psql -c`, `man -P`) or holds a secret
/// (`mysql -pSECRET`). The same filter runs at the save (so the archive
/// holds no more) and again at the restore, against this list, never taken
/// from the archive (R16). A program a user adds gets its arguments as they
/// were: add only programs whose arguments you trust.
///
/// For every program, an argument holding a control character (a newline,
/// an escape) is dropped: no file name a person types holds one, and less
/// and others have run commands hidden in such names. An editor's or
/// pager's relative file name with a `:` is given as `./name`, so that no
/// handler of a `scheme:` name (Neovim's `zipfile:`, `fugitive:`) opens it;
/// and a remote shell's destination and user must be a plain host name or
/// address and a plain user name (OpenSSH expands both into `%h` and `%r`
/// of the user's `ProxyCommand` and `Match exec`).
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

    /// A policy from the plugin option `programs` (an ``OptionList``; `+name` adds to the default list, a plain list
    /// replaces it).
    public init(option: String?) {
        guard let option else {
            self.init()
            return
        }
        let names = OptionList.names(option)
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
        command(for: arguments) != nil
    }

    /// The command line that starts `arguments` (a program's, its name
    /// first) again, or nil when it may not run again.
    public func command(for arguments: [String]) -> [String]? {
        guard let first = arguments.first else { return nil }
        let name = ForegroundProgram.baseName(first)
        guard programs.contains(name) else { return nil }
        let rest = arguments.dropFirst().filter { SavedText.isPrintable($0) }
        // Operands: no option, no URL (an editor or pager would fetch it with another program).
        let operands = rest.filter { !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasPrefix("+") && !$0.contains("://") }
        switch name {
        case "vi", "vim", "nvim", "nano", "less", "more":
            return [name] + operands.map(Self.plainFileName)
        case "emacs":
            guard rest.contains(where: { $0 == "-nw" || $0 == "--no-window-system" }) else { return nil }
            return [name, "-nw"] + operands.map(Self.plainFileName)
        case "man":
            return [name] + operands
        case "top", "htop", "btop":
            return [name]
        case "tail":
            return Self.tail(rest).map { [name] + $0 }
        case "ssh":
            return Self.remoteShell(rest, flags: "46ACKTXYaqtvx", valued: ["-p", "-l", "-i", "-J"]).map { [name] + $0 }
        case "mosh":
            guard let destination = operands.first, Self.isDestination(destination) else { return nil }
            return [name, destination]
        case "sqlite3":
            return [name] + Self.options(rest, valued: [], long: [], operands: 1,
                                         dropped: ["-cmd", "-init", "-separator", "-newline", "-nullvalue", "-vfs", "-mmap", "-maxsize", "-lookaside", "-pagecache", "-heap"])
        case "psql":
            return [name] + Self.options(rest, valued: ["-h", "-p", "-U", "-d"], long: ["--host=", "--port=", "--username=", "--dbname="], operands: 2,
                                         dropped: ["-c", "-f", "-v", "-o", "-L", "-T", "-P", "-F", "-R", "--command", "--file", "--set", "--variable", "--output", "--log-file"])
        case "mysql":
            return [name] + Self.options(rest, valued: ["-h", "-P", "-u", "-D"], long: ["--host=", "--port=", "--user=", "--database="], operands: 1,
                                         dropped: ["-e", "--execute", "--init-command", "-S", "--socket"])
        default:
            // A program the user added: its arguments as they were.
            return [name] + rest
        }
    }

    /// `operand` as a file name no handler takes for a `scheme:` name: a
    /// name whose first component holds a `:` gets `./` before it. Once
    /// written so it stays as it is, save after save.
    static func plainFileName(_ operand: String) -> String {
        operand.prefix { $0 != "/" }.contains(":") ? "./" + operand : operand
    }

    /// Whether `destination` is `[user@]host` with a plain user name and a
    /// host name, IPv4 or bracketed IPv6 address: nothing OpenSSH or the
    /// user's configuration could read as more than a name.
    static func isDestination(_ destination: String) -> Bool {
        let parts = destination.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let host = parts.last else { return false }
        if parts.count == 2, !isPlainName(parts[0]) { return false }
        if host.hasPrefix("["), host.hasSuffix("]") {
            let address = host.dropFirst().dropLast()
            return !address.isEmpty && address.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        }
        return isPlainName(host)
    }

    /// Letters, digits, `.`, `_` and `-`, not starting with `-`.
    static func isPlainName(_ name: Substring) -> Bool {
        !name.isEmpty && !name.hasPrefix("-") && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }
    }

    /// `tail`'s following options, line counts and files; nil when it does not follow.
    private static func tail(_ arguments: [String]) -> [String]? {
        var kept: [String] = []
        var follows = false
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "-f", "-F", "--follow", "--follow=name", "--follow=descriptor", "--retry":
                kept.append(argument)
                follows = follows || argument != "--retry"
            case "-n":
                if let count = iterator.next(), Self.isLineCount(count) { kept += ["-n", count] }
            default:
                if argument.hasPrefix("--lines="), Self.isLineCount(argument.dropFirst(8)) {
                    kept.append(argument)
                } else if argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.dropFirst().allSatisfy({ "fFq".contains($0) }) {
                    kept.append(argument)
                    follows = follows || argument.contains("f") || argument.contains("F")
                } else if !argument.hasPrefix("-"), !argument.isEmpty {
                    kept.append(argument)
                }
            }
        }
        return follows ? kept : nil
    }

    /// ssh's harmless flags, the options in `valued` with their values, and
    /// the destination; no remote command, no `-o`, `-F` or forwarding.
    /// A user (`-l`), jump host (`-J`), port (`-p`) or destination that is
    /// not plain (``isDestination(_:)``) keeps the program from running again.
    private static func remoteShell(_ arguments: [String], flags: String, valued: Set<String>) -> [String]? {
        var kept: [String] = []
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if valued.contains(argument) {
                guard let value = iterator.next() else { break }
                switch argument {
                case "-l": guard isPlainName(value[...]) else { return nil }
                case "-J": guard value.split(separator: ",").allSatisfy({ isDestination(String($0.split(separator: ":").first ?? "")) }) else { return nil }
                case "-p": guard !value.isEmpty, value.allSatisfy(\.isNumber) else { return nil }
                default: guard !value.hasPrefix("-") else { return nil }
                }
                kept += [argument, value]
            } else if argument.hasPrefix("-") {
                if argument.count > 1, argument.dropFirst().allSatisfy({ flags.contains($0) }) { kept.append(argument) }
                // Other options (-o, -F, -L, -R, -D, ...) take a value: skip it.
                else if argument.count == 2, !flags.contains(argument.last!) { _ = iterator.next() }
            } else {
                // The destination; what follows it is a remote command, not kept.
                return isDestination(argument) ? kept + [argument] : nil
            }
        }
        return nil
    }

    /// The options in `valued` (with their values) and `long` (`--name=value`),
    /// and the first `operands` operands; every other option dropped, and
    /// with those in `dropped` the value that follows them.
    private static func options(_ arguments: [String], valued: Set<String>, long: [String], operands: Int, dropped: Set<String>) -> [String] {
        var kept: [String] = []
        var operandCount = 0
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            if valued.contains(argument) {
                guard let value = iterator.next() else { break }
                kept += [argument, value]
            } else if long.contains(where: { argument.hasPrefix($0) }) {
                kept.append(argument)
            } else if dropped.contains(argument) {
                _ = iterator.next()
            } else if argument.hasPrefix("-") {
                continue
            } else if operandCount < operands, !argument.isEmpty {
                kept.append(argument)
                operandCount += 1
            }
        }
        return kept
    }

    /// Whether `text` is a count of lines, its signs at either end aside
    /// (tail's `-n +5`, `-n -5`).
    private static func isLineCount(_ text: some StringProtocol) -> Bool {
        let signs: Set<Character> = ["+", "-"]
        guard let first = text.firstIndex(where: { !signs.contains($0) }), let last = text.lastIndex(where: { !signs.contains($0) }) else {
            return false
        }
        return Int(text[first...last]) != nil
    }
}
