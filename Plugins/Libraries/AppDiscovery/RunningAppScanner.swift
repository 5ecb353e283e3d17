public import DesktopEntries
import FoundationEssentials
import Glibc
import UnitLaunching
import SystemSupport

/// Finds the running apps of one user from `/proc`, with no help from
/// the apps, most precise evidence first:
///
/// 1. the systemd unit in `/proc/PID/cgroup`, named by launchers as
///    systemd's `DESKTOP_ENVIRONMENTS.md` says
///    (`app-<launcher>-<id>-<random>.scope`, `app-<launcher>-<id>@<random>.service`):
///    one instance per unit, its main process the first started whose
///    parent is outside the unit; and a service in an app's slice
///    (`gnome-terminal-server.service` in `app-org.gnome.Terminal.slice`);
/// 2. `GIO_LAUNCHED_DESKTOP_FILE` in `/proc/PID/environ`, on the process
///    whose pid is its `GIO_LAUNCHED_DESKTOP_FILE_PID` (children inherit
///    the variables, not the pid);
/// 3. the process's executable against the entries' `TryExec` and `Exec`
///    programs (and ``executableAliases``), for a process whose parent is
///    not the same program, and that is no GApplication service started
///    for a search (`--gapplication-service`, no window).
///
/// Only `Type=Application` entries that are neither `NoDisplay` nor
/// `Hidden` count. Programs that start others (`env`, shells,
/// interpreters, `flatpak`) are never matched by executable.
public struct RunningAppScanner: Sendable {
    /// Where `/proc` is.
    public var proc: String
    /// Whose processes count.
    public var uid: UInt32

    /// A scanner of `uid`'s processes (this process's user when nil).
    public init(proc: String = "/proc", uid: UInt32? = nil) {
        self.proc = proc
        self.uid = uid ?? getuid()
    }

    /// Programs that run others: an entry whose `TryExec` or `Exec`
    /// program is one is never matched by executable (its real app is an
    /// argument).
    public static let wrapperPrograms: Set<String> = [
        "env", "sh", "bash", "dash", "zsh", "python", "python3", "perl", "ruby", "node", "java", "flatpak", "snap", "gjs", "mono", "wine",
    ]

    /// The running instances of `index`'s entries, in the order they started.
    public func scan(_ index: DesktopEntryIndex) -> [RunningApp] {
        let records = processes()
        let byPID = Dictionary(records.map { ($0.pid, $0) }, uniquingKeysWith: { first, _ in first })
        func visible(_ id: String) -> DesktopEntry? {
            guard let entry = index[id], entry.isLaunchable, !entry.noDisplay else { return nil }
            return entry
        }
        var found: [RunningApp] = []
        var claimed: Set<Int32> = []

        // 1. Units of the scheme.
        var units: [String: [ProcessRecord]] = [:]
        for record in records {
            if let unit = record.unit, UnitName.application(ofUnit: unit) != nil { units[unit, default: []].append(record) }
        }
        for (unit, members) in units {
            guard let application = UnitName.application(ofUnit: unit) else { continue }
            // The application id is the desktop id without `.desktop`; an id
            // that itself ends so (`org.telegram.desktop`) is looked up whole first.
            let id = application.applicationID
            // Every process of an app's unit is the app's, found or not.
            claimed.formUnion(members.map(\.pid))
            guard let entry = visible(id + ".desktop") ?? (id.hasSuffix(".desktop") ? visible(id) : nil) else { continue }
            let roots = members.filter { byPID[$0.parent]?.unit != unit }
            guard let main = roots.min(by: { $0.startTime < $1.startTime }) else { continue }
            found.append(instance(of: entry, main, unit: unit, evidence: .unit))
        }

        // 1b. Services in an app's slice (`gnome-terminal-server.service` in
        // `app-org.gnome.Terminal.slice`): one instance per service.
        var sliced: [String: [ProcessRecord]] = [:]
        for record in records where !claimed.contains(record.pid) {
            if let slice = record.appSlice, let unit = record.unit { sliced[slice + "/" + unit, default: []].append(record) }
        }
        for (key, members) in sliced {
            let slice = key.split(separator: "/")[0]
            guard let id = UnitName.unescape(slice.dropFirst(4).dropLast(6)) else { continue }
            claimed.formUnion(members.map(\.pid))
            guard let entry = visible(id + ".desktop") else { continue }
            let unit = members[0].unit
            let roots = members.filter { byPID[$0.parent]?.unit != unit }
            guard let main = roots.min(by: { $0.startTime < $1.startTime }) else { continue }
            found.append(instance(of: entry, main, unit: unit, evidence: .unit))
        }

        // 2. GIO's variables, on the launched process itself.
        for record in records where !claimed.contains(record.pid) {
            guard let file = record.environment["GIO_LAUNCHED_DESKTOP_FILE"],
                  record.environment["GIO_LAUNCHED_DESKTOP_FILE_PID"] == String(record.pid)
            else { continue }
            let id = index.entries.values.first { $0.path == file }?.id ?? String(file.split(separator: "/").last ?? "")
            guard let entry = visible(id) else { continue }
            claimed.insert(record.pid)
            found.append(instance(of: entry, record, unit: nil, evidence: .launcherEnvironment))
        }
        // A launched process's children are its app's too.
        var changed = true
        while changed {
            changed = false
            for record in records where !claimed.contains(record.pid) && claimed.contains(record.parent) && record.environment["GIO_LAUNCHED_DESKTOP_FILE"] != nil {
                claimed.insert(record.pid)
                changed = true
            }
        }

        // 3. Executables.
        var programs: [String: DesktopEntry] = [:]
        for entry in index.entries.values.sorted(by: { $0.id < $1.id }) {
            guard visible(entry.id) != nil, let program = entry.tryExec ?? entry.exec?.program else { continue }
            let name = ProgramName.of(program)
            guard !Self.wrapperPrograms.contains(name), programs[name] == nil else { continue }
            programs[name] = entry
        }
        for (alias, id) in Self.executableAliases where programs[alias] == nil {
            if let entry = visible(id) { programs[alias] = entry }
        }
        for record in records where !claimed.contains(record.pid) {
            guard let executable = record.executable, case let name = ProgramName.of(executable),
                  let entry = programs[name]
            else { continue }
            // A GApplication service started for a shell search has no window: not an instance.
            if record.commandLine.contains("--gapplication-service") { continue }
            // The same program's child (a helper, a second process) is the same instance.
            if let parent = byPID[record.parent], parent.executable == executable { continue }
            found.append(instance(of: entry, record, unit: nil, evidence: .executable))
        }
        return found.sorted { ($0.startTime, $0.pid) < ($1.startTime, $1.pid) }
    }

    /// Programs whose running executable is not the one their entry's
    /// `Exec` names: the server a terminal's launcher starts, a GUI binary
    /// behind its command.
    public static let executableAliases: [String: String] = [
        "gnome-terminal-server": "org.gnome.Terminal.desktop",
        "wezterm-gui": "org.wezfurlong.wezterm.desktop",
    ]

    /// The user's processes.
    private func processes() -> [ProcessRecord] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: proc) else { return [] }
        return entries.compactMap(Int32.init).compactMap { ProcessRecord(pid: $0, proc: proc, owner: uid) }
    }

    private func instance(of entry: DesktopEntry, _ record: ProcessRecord, unit: String?, evidence: RunningApp.Evidence) -> RunningApp {
        RunningApp(
            desktopID: entry.id, pid: record.pid, directory: record.directory, commandLine: record.commandLine,
            openedItems: Self.opened(by: entry, commandLine: record.commandLine, directory: record.directory),
            unit: unit, evidence: evidence, startTime: record.startTime)
    }

    /// What `commandLine` was opened with where `entry`'s `Exec` takes it:
    /// existing files and URLs only, one of them for `%f`/`%u`.
    static func opened(by entry: DesktopEntry, commandLine: [String], directory: String?) -> [String] {
        guard let exec = entry.exec else { return [] }
        let items = existingItems(exec.openedItems(in: commandLine), directory: directory)
        return exec.takesSeveral ? items : Array(items.prefix(1))
    }

    /// The `items` that are URLs (``isURL(_:)``), or files that still exist
    /// (made absolute against `directory`); never an option (`-...`).
    static func existingItems(_ items: [String], directory: String?) -> [String] {
        items.compactMap { item in
            guard !item.hasPrefix("-") else { return nil }
            if isURL(item) {
                if item.hasPrefix("file://") {
                    guard let url = URL(string: item), FileManager.default.fileExists(atPath: url.path) else { return nil }
                    return url.path
                }
                return item
            }
            let path = item.hasPrefix("/") ? item : directory.map { $0 + "/" + item } ?? item
            return path.hasPrefix("/") && FileManager.default.fileExists(atPath: path) ? path : nil
        }
    }

    /// Whether `item` is a URL: a scheme (a letter, then letters, digits,
    /// `+`, `-` or `.`) and `://`.
    public static func isURL(_ item: String) -> Bool {
        guard let scheme = item.prefix(beforeFirst: "://"), !scheme.isEmpty else { return false }
        return scheme.first!.isASCII && scheme.first!.isLetter && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }
}
