import Foundation

/// The desktop entries of the user, by desktop file id, as the Desktop
/// Entry Specification finds them: `$XDG_DATA_HOME/applications` (default
/// `~/.local/share/applications`), then each of `$XDG_DATA_DIRS` (default
/// `/usr/local/share:/usr/share`) `/applications`, subdirectories included
/// (`kde/konsole.desktop` has the id `kde-konsole.desktop`). The first
/// file of an id wins, even a broken one, and one with `Hidden=true`
/// deletes the entry.
public struct DesktopEntryIndex: Sendable {
    /// The entries, by id.
    public private(set) var entries: [String: DesktopEntry] = [:]
    /// The files that could not be read, one line each.
    public private(set) var problems: [String] = []

    /// The `applications` directories for `environment`, first first.
    public static func directories(environment: [String: String]) -> [String] {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        let dataDirs = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        return ([dataHome] + dataDirs).map { $0 + "/applications" }
    }

    /// Reads every entry of `directories`.
    public init(directories: [String]) {
        var taken: Set<String> = []
        for directory in directories {
            for file in Self.desktopFiles(in: directory) {
                let relative = String(file.dropFirst(directory.count + 1))
                let id = relative.replacingOccurrences(of: "/", with: "-")
                // The first file of an id wins, even when it cannot be used:
                // a broken or unreadable file of the user's hides the system's.
                guard entries[id] == nil, !taken.contains(id) else { continue }
                taken.insert(id)
                guard let data = FileManager.default.contents(atPath: file) else {
                    problems.append("\(file): cannot be read")
                    continue
                }
                do {
                    entries[id] = try DesktopEntry(parsing: String(decoding: data, as: UTF8.self), id: id, path: file)
                } catch {
                    problems.append(error.description)
                }
            }
        }
    }

    /// Reads every entry of `environment`'s directories.
    public init(environment: [String: String]) {
        self.init(directories: Self.directories(environment: environment))
    }

    /// The entry of `id`.
    public subscript(id: String) -> DesktopEntry? { entries[id] }

    /// The `*.desktop` files under `directory`, in name order.
    private static func desktopFiles(in directory: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            if relative.hasSuffix(".desktop") { files.append(directory + "/" + relative) }
        }
        return files.sorted()
    }
}
