public import RestoredArchive
public import SystemPackage
import SystemSupport

/// Plugins' options in configuration files a user edits without touching
/// the systemd unit: INI files with one section per app id.
///
/// ```ini
/// # ~/.config/restored/restored.conf
/// [org.restored.Tmux]
/// pane-contents = true
/// ignore-servers = scratch
/// ```
///
/// Syntax, as in systemd's unit files and desktop entries: `#` or `;` starts
/// a comment line, `[APP-ID]` starts an app's section, `key = value` sets
/// one option (blanks around both are dropped; the value runs to the end of
/// the line, `=` and `#` included). A key set twice keeps the last value.
///
/// Where: every `*.conf` file of `$XDG_CONFIG_HOME/restored/` (by default
/// `~/.config/restored/`), then of each `$XDG_CONFIG_DIRS` entry's
/// `restored/` (by default `/etc/xdg/restored/`). Within a directory, files
/// are read in the order of their names, a later one winning; the user's
/// directory wins over the system's, and `--option` on the command line wins
/// over every file. A line that cannot be read is one ``Problem`` naming the
/// file and line; the rest of the file still counts.
public struct AppOptionsFile: Sendable {
    /// A line that could not be read.
    public struct Problem: Hashable, Sendable, CustomStringConvertible {
        /// The file.
        public var file: FilePath
        /// The line, from 1.
        public var line: Int
        /// What is wrong and what to write instead.
        public var reason: String

        /// One line: the file, the line, what is wrong and what is done.
        public var description: String { line > 0 ? "\(file.string):\(line): \(reason)" : "\(file.string): \(reason)" }
    }

    /// The options read, by app.
    public var options: [AppID: [String: String]] = [:]
    /// The lines that could not be read.
    public var problems: [Problem] = []

    /// Reads the text of `file`.
    public init(parsing text: String, file: FilePath) {
        /// The section the lines are in.
        enum Section {
            case none
            case app(AppID)
            /// A header that could not be read: its keys are ignored with it.
            case refused
        }
        var section = Section.none
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingBlanks()
            let number = index + 1
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else {
                    problems.append(Problem(file: file, line: number, reason: "a section header must end with ]; the section's options are ignored"))
                    section = .refused
                    continue
                }
                let name = String(line.dropFirst().dropLast()).trimmingBlanks()
                do {
                    section = .app(try AppID(name))
                } catch {
                    problems.append(Problem(file: file, line: number, reason: "[\(name)] is not an app id (\(error)); the section's options are ignored"))
                    section = .refused
                }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                problems.append(Problem(file: file, line: number, reason: "expected key = value, an [APP-ID] section or a # comment; the line is ignored"))
                continue
            }
            let key = String(line[..<equals]).trimmingBlanks()
            let value = String(line[line.index(after: equals)...]).trimmingBlanks()
            guard !key.isEmpty, key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }) else {
                problems.append(Problem(file: file, line: number, reason: "\"\(key)\" is not a key (letters, digits, - _ and . only); the line is ignored"))
                continue
            }
            switch section {
            case .app(let appID):
                options[appID, default: [:]][key] = value
            case .refused:
                continue  // Reported with its header.
            case .none:
                problems.append(Problem(file: file, line: number, reason: "\(key) is outside any [APP-ID] section; the line is ignored"))
            }
        }
    }

    /// The directories searched, the most important first.
    public static func directories(environment: [String: String]) -> [FilePath] {
        let directories = XDGBaseDirectories(environment: environment)
        return ([directories.configHome] + directories.configDirectories).map { FilePath($0).appending("restored") }
    }

    /// Every option of every file in `directories` (the most important
    /// first), merged, with the problems of all of them. A directory or
    /// file that does not exist is no problem; one that cannot be read is.
    public static func load(from directories: [FilePath], fileSystem: FileSystem = .live) -> AppOptionsFile {
        var unreadable: [Problem] = []
        var merged = load(from: directories) { file in
            do throws(Errno) {
                let descriptor = try fileSystem.open(file, .readOnly)
                defer { try? fileSystem.close(descriptor) }
                return String(decoding: try fileSystem.readAll(descriptor), as: UTF8.self)
            } catch {
                unreadable.append(Problem(file: file, line: 0, reason: "cannot be read (\(error)); its options are ignored"))
                return nil
            }
        } list: { directory in
            do throws(Errno) {
                return try fileSystem.contentsOfDirectory(directory)
            } catch {
                if error != .noSuchFileOrDirectory && error != .notDirectory {
                    unreadable.append(Problem(file: directory, line: 0, reason: "cannot be listed (\(error)); its files are ignored"))
                }
                return []
            }
        }
        merged.problems = unreadable + merged.problems
        return merged
    }

    /// ``load(from:fileSystem:)`` with the file operations given.
    static func load(from directories: [FilePath], read: (FilePath) -> String?, list: (FilePath) -> [String]) -> AppOptionsFile {
        var merged = AppOptionsFile(parsing: "", file: FilePath("/"))
        // The least important first, so that later ones override.
        for directory in directories.reversed() {
            for name in list(directory).filter({ $0.hasSuffix(".conf") }).sorted() {
                let file = directory.appending(name)
                guard let text = read(file) else { continue }
                let parsed = AppOptionsFile(parsing: text, file: file)
                merged.problems += parsed.problems
                for (appID, options) in parsed.options {
                    merged.options[appID, default: [:]].merge(options) { _, new in new }
                }
            }
        }
        return merged
    }
}

extension StringProtocol {
    /// The text without spaces and tabs at either end.
    fileprivate func trimmingBlanks() -> String {
        var slice = Substring(self)
        while let first = slice.first, first == " " || first == "\t" || first == "\r" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" || last == "\r" { slice = slice.dropLast() }
        return String(slice)
    }
}
