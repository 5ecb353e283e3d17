/// Why a desktop entry cannot be used, with its cause: callers tell the
/// cases apart by their case. Each says in one line what is wrong, naming
/// the file.
public indirect enum DesktopEntryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// An `Exec` value the Desktop Entry Specification does not allow, and why.
    case execSyntax(String)
    /// A line that is no group header, key or comment, and why.
    case malformedLine(file: String, line: Int, String)
    /// No `[Desktop Entry]` group.
    case noMainGroup(file: String)
    /// No `Type` key.
    case noType(file: String)
    /// The `Exec` key cannot be used.
    case invalidExec(file: String, DesktopEntryError)
    /// An application with no `Exec` that is not D-Bus activatable.
    case noExec(file: String)

    /// One line.
    public var description: String {
        switch self {
        case .execSyntax(let why): why
        case .malformedLine(let file, let line, let why): "\(file):\(line): \(why)"
        case .noMainGroup(let file): "\(file): no [Desktop Entry] group"
        case .noType(let file): "\(file): no Type key"
        case .invalidExec(let file, let cause): "\(file): Exec: \(cause)"
        case .noExec(let file): "\(file): an application with no Exec that is not D-Bus activatable"
        }
    }
}
