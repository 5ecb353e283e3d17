/// A desktop entry's `Exec` command line, parsed as the Desktop Entry
/// Specification says: arguments split at spaces, double-quoted arguments
/// unquoted (`\"`, `` \` ``, `\$`, `\\`), and field codes kept apart from
/// text, so that expanding them never goes through a shell: a file name
/// with spaces or shell characters becomes exactly one argument.
public struct ExecCommand: Hashable, Sendable {
    /// One piece of an argument.
    public enum Part: Hashable, Sendable {
        /// Text, as it is.
        case text(String)
        /// A field code: `f F u U i c k`, and the deprecated `d D n N v m`.
        case field(Character)
    }

    /// The arguments, the program first, each a sequence of parts.
    public var arguments: [[Part]]

    /// The field codes the specification defines.
    static let fieldCodes: Set<Character> = ["f", "F", "u", "U", "i", "c", "k", "d", "D", "n", "N", "v", "m"]

    /// The command line `value` (a string value with its escapes already undone).
    public init(parsing value: String) throws(DesktopEntryError) {
        var arguments: [[Part]] = []
        var current: [Part] = []
        var text = ""
        var inArgument = false
        var quoted = false
        var characters = value.makeIterator()
        func flushText() {
            if !text.isEmpty { current.append(.text(text)); text = "" }
        }
        func endArgument() {
            flushText()
            if inArgument { arguments.append(current) }
            current = []
            inArgument = false
        }
        while let character = characters.next() {
            if quoted {
                switch character {
                case "\"":
                    quoted = false
                case "\\":
                    guard let next = characters.next() else { throw DesktopEntryError.execSyntax("a backslash ends a quoted argument") }
                    guard ["\"", "`", "$", "\\"].contains(next) else {
                        throw DesktopEntryError.execSyntax("\\\(next) is no escape inside quotes (only \\\", \\`, \\$ and \\\\ are)")
                    }
                    text.append(next)
                case "%":
                    // Field codes inside quotes are undefined by the spec: kept as text, never expanded.
                    text.append(character)
                default:
                    text.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t", "\n":
                endArgument()
            case "\"":
                inArgument = true
                quoted = true
            case "%":
                inArgument = true
                guard let code = characters.next() else { throw DesktopEntryError.execSyntax("a % ends the command line") }
                if code == "%" {
                    text.append("%")
                } else if Self.fieldCodes.contains(code) {
                    flushText()
                    current.append(.field(code))
                } else {
                    throw DesktopEntryError.execSyntax("%\(code) is no field code")
                }
            case "\\", "'", ">", "<", "~", "|", "&", ";", "$", "*", "?", "#", "(", ")", "`":
                throw DesktopEntryError.execSyntax("the reserved character \(character) outside quotes")
            default:
                inArgument = true
                text.append(character)
            }
        }
        guard !quoted else { throw DesktopEntryError.execSyntax("a quote is not closed") }
        endArgument()
        guard let program = arguments.first else { throw DesktopEntryError.execSyntax("no program") }
        guard program.allSatisfy({ if case .text = $0 { return true } else { return false } }) else {
            throw DesktopEntryError.execSyntax("the program is a field code")
        }
        for argument in arguments where argument.count > 1 {
            for part in argument {
                if case .field(let code) = part, code == "F" || code == "U" {
                    throw DesktopEntryError.execSyntax("%\(code) must be an argument on its own")
                }
            }
        }
        self.arguments = arguments
    }

    /// The program: a name looked up in `PATH`, or a path.
    public var program: String {
        arguments.first.map(Self.text(of:)) ?? ""
    }

    /// Whether the command takes files (`%f`, `%F`).
    public var takesFiles: Bool { contains(["f", "F"]) }
    /// Whether the command takes URLs (`%u`, `%U`).
    public var takesURLs: Bool { contains(["u", "U"]) }
    /// Whether the command takes several at once (`%F`, `%U`).
    public var takesSeveral: Bool { contains(["F", "U"]) }

    private func contains(_ codes: Set<Character>) -> Bool {
        arguments.contains { $0.contains { if case .field(let code) = $0 { return codes.contains(code) } else { return false } } }
    }

    /// The arguments to run, the program first: `%f`/`%u` take the first of
    /// `files`, `%F`/`%U` all of them, each exactly one argument; `%i`,
    /// `%c` and `%k` come from `entry`; deprecated codes expand to nothing.
    /// An argument that was only a field code with nothing to give is left out.
    public func expanded(files: [String], entry: DesktopEntry? = nil) -> [String] {
        var result: [String] = []
        for argument in arguments {
            if argument.count == 1, case .field(let code) = argument[0] {
                switch code {
                case "F", "U": result += files
                case "f", "u": if let first = files.first { result.append(first) }
                case "i": if let icon = entry?.icon, !icon.isEmpty { result += ["--icon", icon] }
                case "c": if let name = entry?.name { result.append(name) }
                case "k": if let path = entry?.path { result.append(path) }
                default: break
                }
                continue
            }
            var text = ""
            for part in argument {
                switch part {
                case .text(let value): text += value
                case .field("f"), .field("u"): text += files.first ?? ""
                case .field("c"): text += entry?.name ?? ""
                case .field("k"): text += entry?.path ?? ""
                case .field("i"): text += entry?.icon ?? ""
                case .field: break
                }
            }
            result.append(text)
        }
        return result
    }

    /// The arguments of a running `commandLine` (its `argv`) that stand
    /// where this command takes files or URLs: what is left once the
    /// program and this command's own arguments are matched in order
    /// (which of them are files, and how many are kept, is the caller's).
    /// Empty when the command takes none, or takes them inside a longer
    /// argument (`--file=%f`).
    public func openedItems(in commandLine: [String]) -> [String] {
        guard takesFiles || takesURLs, commandLine.count > 1 else { return [] }
        // A code inside a longer argument (`--file=%f`) cannot be told from
        // the text around it: nothing is taken from such a command.
        guard !arguments.contains(where: { $0.count > 1 && $0.contains { if case .field = $0 { true } else { false } } }) else { return [] }
        let fixed = arguments.dropFirst().compactMap { argument -> String? in
            argument.allSatisfy({ if case .text = $0 { return true } else { return false } }) ? Self.text(of: argument) : nil
        }
        var items: [String] = []
        var next = fixed.startIndex
        for value in commandLine.dropFirst() {
            if next < fixed.endIndex, value == fixed[next] {
                next += 1
            } else {
                items.append(value)
            }
        }
        return items
    }

    private static func text(of argument: [Part]) -> String {
        argument.map { if case .text(let value) = $0 { return value } else { return "" } }.joined()
    }
}
