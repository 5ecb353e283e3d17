/// One desktop entry (the Desktop Entry Specification, version 1.5): the
/// keys of its `[Desktop Entry]` group that launching and finding an app
/// need, unlocalized.
public struct DesktopEntry: Hashable, Sendable {
    /// Its desktop file id (`org.gnome.Terminal.desktop`, `kde-konsole.desktop`).
    public var id: String
    /// The file it was read from.
    public var path: String
    /// `Type`: only `Application` entries are launched.
    public var type: String
    /// `Name`.
    public var name: String
    /// `Exec`, parsed; nil when the entry has none (a D-Bus activatable entry may not).
    public var exec: ExecCommand?
    /// `TryExec`: the executable that must exist for the entry to count.
    public var tryExec: String?
    /// `Path`: the directory the program starts in.
    public var workingDirectory: String?
    /// `Icon`, for the `%i` field code.
    public var icon: String?
    /// `NoDisplay`: the entry is not shown in menus.
    public var noDisplay: Bool
    /// `Hidden`: the entry is deleted.
    public var hidden: Bool
    /// `DBusActivatable`: launched through `org.freedesktop.Application`.
    public var dbusActivatable: Bool
    /// `Terminal`: the program runs in a terminal.
    public var terminal: Bool
    /// `StartupWMClass`.
    public var startupWMClass: String?
    /// `Categories` (`WebBrowser`, `TerminalEmulator`, ...).
    public var categories: [String]

    /// Whether the entry may be launched: an application, not hidden.
    public var isLaunchable: Bool { type == "Application" && !hidden }

    /// The entry in `text`, the contents of the file at `path`, with the id `id`.
    public init(parsing text: String, id: String, path: String) throws(DesktopEntryError) {
        var keys: [String: String] = [:]
        var inMainGroup = false
        var sawMainGroup = false
        // Lines end at LF or CRLF (one Character in Swift: split on either).
        for (number, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            var trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.hasPrefix("[") {
                while trimmed.last == " " || trimmed.last == "\t" { trimmed = trimmed.dropLast() }
                guard trimmed.hasSuffix("]") else { throw DesktopEntryError.malformedLine(file: path, line: number + 1, "a group header without its ]") }
                let group = trimmed.dropFirst().dropLast()
                // Only the first [Desktop Entry] group counts; actions and others are skipped.
                inMainGroup = group == "Desktop Entry" && !sawMainGroup
                sawMainGroup = sawMainGroup || inMainGroup
                continue
            }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw DesktopEntryError.malformedLine(file: path, line: number + 1, "a line that is neither a group, a key nor a comment")
            }
            guard inMainGroup else { continue }
            var key = trimmed[..<equals]
            while key.last == " " || key.last == "\t" { key = key.dropLast() }
            // Localized values (Name[de]) are not needed to launch or find an app.
            if key.contains("[") { continue }
            let value = trimmed[trimmed.index(after: equals)...].drop { $0 == " " || $0 == "\t" }
            if keys[String(key)] == nil { keys[String(key)] = String(value) }
        }
        guard sawMainGroup else { throw DesktopEntryError.noMainGroup(file: path) }
        // Hidden=true is the entry deleted: it needs nothing else (and hides any entry of its id further down the path).
        let isHidden = keys["Hidden"] == "true"
        guard let type = keys["Type"] ?? (isHidden ? "Application" : nil) else { throw DesktopEntryError.noType(file: path) }
        func string(_ key: String) -> String? { keys[key].map(Self.unescape) }
        func boolean(_ key: String) -> Bool { keys[key] == "true" }
        self.id = id
        self.path = path
        self.type = type
        name = string("Name") ?? id
        tryExec = string("TryExec")
        workingDirectory = string("Path").flatMap { $0.isEmpty ? nil : $0 }
        icon = string("Icon")
        noDisplay = boolean("NoDisplay")
        hidden = boolean("Hidden")
        dbusActivatable = boolean("DBusActivatable")
        terminal = boolean("Terminal")
        startupWMClass = string("StartupWMClass")
        categories = string("Categories").map { $0.split(separator: ";").map(String.init) } ?? []
        if let exec = string("Exec") {
            do {
                self.exec = try ExecCommand(parsing: exec)
            } catch {
                throw DesktopEntryError.invalidExec(file: path, error)
            }
        } else {
            exec = nil
        }
        if type == "Application", exec == nil, !dbusActivatable, !hidden {
            throw DesktopEntryError.noExec(file: path)
        }
    }

    /// A string value with the specification's escapes (`\s \n \t \r \\`) undone.
    static func unescape(_ value: String) -> String {
        var result = ""
        var escaped = false
        for character in value {
            if escaped {
                switch character {
                case "s": result.append(" ")
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "\\": result.append("\\")
                default: result.append("\\"); result.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        if escaped { result.append("\\") }
        return result
    }
}
