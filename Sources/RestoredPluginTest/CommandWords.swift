import ArgumentParser
import Glibc
import SystemSupport

/// A command given as one option value (`--start 'tmux -S "my socket" new'`),
/// split into words the way a POSIX shell splits them, and run without a
/// shell.
///
/// Blanks separate words; `'…'` keeps everything as it is; `"…"` keeps
/// everything but `\"`, `\\`, `` \` `` and `\$`, which it unescapes; a
/// backslash outside quotes keeps the next character. Nothing is expanded,
/// so what a shell would have expanded or interpreted is refused instead of
/// being passed on as text a user did not mean: `$NAME`, `${…}`, `$(…)`
/// and backquotes outside single quotes, a leading `~`, and the operators
/// `;`, `|`, `&`, `<`, `>` outside quotes. (`sh -c '…'` runs a shell on
/// purpose.)
struct CommandWords: Hashable, Sendable, CustomStringConvertible {
    /// The words, the program first.
    let words: [String]
    /// The text as given.
    let text: String

    /// The text as given.
    var description: String { text }

    /// Splits `text`; throws a `ValidationError` that says what to change.
    static func parse(_ text: String) throws -> CommandWords {
        var words: [String] = []
        var word = ""
        var inWord = false
        var characters = Array(text)[...]
        func refuse(_ what: String) -> ValidationError {
            ValidationError("\"\(text)\": \(what); commands run without a shell (use sh -c '…' for one)")
        }
        while let character = characters.popFirst() {
            switch character {
            case " ", "\t", "\n":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'":
                inWord = true
                guard let end = characters.firstIndex(of: "'") else { throw refuse("a single quote is not closed") }
                word += characters[..<end]
                characters = characters[characters.index(after: end)...]
            case "\"":
                inWord = true
                var closed = false
                while let inner = characters.popFirst() {
                    if inner == "\"" {
                        closed = true
                        break
                    }
                    if inner == "\\", let next = characters.first, "\"\\`$\n".contains(next) {
                        characters = characters.dropFirst()
                        if next != "\n" { word.append(next) }
                        continue
                    }
                    if inner == "`" || (inner == "$" && characters.first.map(Self.startsExpansion) == true) {
                        throw refuse("\(inner == "`" ? "a backquote" : "a $ expansion") is not expanded")
                    }
                    word.append(inner)
                }
                guard closed else { throw refuse("a double quote is not closed") }
            case "\\":
                guard let next = characters.popFirst() else { throw refuse("it ends with a backslash") }
                if next != "\n" {
                    word.append(next)
                    inWord = true
                }
            case ";", "|", "&", "<", ">":
                throw refuse("\"\(character)\" is a shell operator")
            case "`":
                throw refuse("a backquote is not expanded")
            case "$" where characters.first.map(Self.startsExpansion) == true:
                throw refuse("a $ expansion is not expanded")
            case "~" where !inWord:
                throw refuse("a leading ~ is not expanded; write the directory")
            default:
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        guard !words.isEmpty else { throw ValidationError("an empty command was given") }
        return CommandWords(words: words, text: text)
    }

    /// Whether `character` after a `$` makes a shell expand it.
    private static func startsExpansion(_ character: Character) -> Bool {
        character == "{" || character == "(" || character == "_" || character.isLetter || character.isNumber || "@*#?$!-".contains(character)
    }

    /// The absolute path of the program: the first word when it holds a
    /// `/` (made absolute against the current directory), else the first
    /// executable of that name in `searchPath`.
    func executable(searchPath: String) throws(PluginTestError) -> String {
        let program = words[0]
        if program.contains("/") {
            let path = program.hasPrefix("/") ? program : Self.currentDirectory() + "/" + program
            guard access(path, X_OK) == 0 else {
                throw .cannotRun(command: text, reason: "\(path) is not an executable file")
            }
            return path
        }
        guard let found = ExecutableSearchPath.executable(named: program, in: searchPath) else {
            throw .cannotRun(command: text, reason: "\(program) is not in PATH (\(searchPath))")
        }
        return found
    }

    private static func currentDirectory() -> String {
        guard let path = getcwd(nil, 0) else { return "." }
        defer { free(path) }
        return String(cString: path)
    }
}
