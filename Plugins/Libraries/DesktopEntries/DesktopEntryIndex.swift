import FoundationEssentials
import SystemSupport

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
    /// The directories read (subdirectories too) and their modification
    /// times then, to tell whether the index is still current.
    private var directoryTimes: [String: Date] = [:]

    /// The `applications` directories for `environment`, first first.
    public static func directories(environment: [String: String]) -> [String] {
        let directories = XDGBaseDirectories(environment: environment)
        return ([directories.dataHome] + directories.dataDirectories).map { $0 + "/applications" }
    }

    /// Reads every entry of `directories`.
    public init(directories: [String]) {
        var taken: Set<String> = []
        for directory in directories {
            for file in Self.desktopFiles(in: directory, directoryTimes: &directoryTimes) {
                let relative = String(file.dropFirst(directory.count + 1))
                let id = relative.replacingEvery("/", with: "-")
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

    /// Whether no directory read has changed since (an entry installed,
    /// removed or replaced, as packages and editors do, changes its
    /// directory), so the index need not be read again. A file written in
    /// place is not seen.
    public var isCurrent: Bool {
        directoryTimes.allSatisfy { Self.modificationTime(of: $0.key) == $0.value }
    }

    /// The `*.desktop` files under `directory`, in name order; the
    /// directories met, with their modification times, go to `directoryTimes`.
    private static func desktopFiles(in directory: String, directoryTimes: inout [String: Date]) -> [String] {
        // A directory that does not exist (yet) is watched too: making it is a change.
        directoryTimes[directory] = modificationTime(of: directory)
        var files: [String] = []
        collectFiles(under: directory, into: &files, directoryTimes: &directoryTimes)
        return files.sorted()
    }

    /// Walks `directory`'s subdirectories, not following symbolic links (a
    /// type is read with `lstat`). A subdirectory that cannot be read is
    /// skipped alone, with the rest of its parent read: a root-only
    /// directory under `/usr/share/applications` must not hide the others.
    private static func collectFiles(under directory: String, into files: inout [String], directoryTimes: inout [String: Date]) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names {
            let path = directory + "/" + name
            var status = stat()
            let isDirectory = lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
            if name.hasSuffix(".desktop") {
                files.append(path)
            } else if isDirectory {
                directoryTimes[path] = modificationTime(of: path)
            }
            if isDirectory { collectFiles(under: path, into: &files, directoryTimes: &directoryTimes) }
        }
    }

    private static func modificationTime(of path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}

#if canImport(Glibc)
import Glibc
#endif
