public import DesktopEntries
import Foundation
import Glibc
import RestoredLaunch

/// Finds the running apps of one user from `/proc`, with no help from
/// the apps, most precise evidence first:
///
/// 1. the systemd unit in `/proc/PID/cgroup`, named by launchers as
///    systemd's `DESKTOP_ENVIRONMENTS.md` says
///    (`app-<launcher>-<id>-<random>.scope`, `app-<launcher>-<id>@<random>.service`):
///    one instance per unit, its main process the first started whose
///    parent is outside the unit;
/// 2. `GIO_LAUNCHED_DESKTOP_FILE` in `/proc/PID/environ`, on the process
///    whose pid is its `GIO_LAUNCHED_DESKTOP_FILE_PID` (children inherit
///    the variables, not the pid);
/// 3. the process's executable against the entries' `TryExec` and `Exec`
///    programs, for a process whose parent is not the same program.
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

    /// Programs that run others: an entry whose `Exec` starts with one is
    /// never matched by executable (its real app is an argument).
    public static let launchers: Set<String> = [
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
            let id = application.applicationID.hasSuffix(".desktop") ? application.applicationID : application.applicationID + ".desktop"
            // Every process of an app's unit is the app's, found or not.
            claimed.formUnion(members.map(\.pid))
            guard let entry = visible(id) else { continue }
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
            let name = program.split(separator: "/").last.map(String.init) ?? program
            guard !Self.launchers.contains(name), programs[name] == nil else { continue }
            programs[name] = entry
        }
        for record in records where !claimed.contains(record.pid) {
            guard let executable = record.executable, let name = executable.split(separator: "/").last.map(String.init),
                  let entry = programs[name]
            else { continue }
            // The same program's child (a helper, a second process) is the same instance.
            if let parent = byPID[record.parent], parent.executable == executable { continue }
            found.append(instance(of: entry, record, unit: nil, evidence: .executable))
        }
        return found.sorted { ($0.startTime, $0.pid) < ($1.startTime, $1.pid) }
    }

    /// The user's processes.
    private func processes() -> [ProcessRecord] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: proc) else { return [] }
        return entries.compactMap(Int32.init).compactMap { ProcessRecord(pid: $0, proc: proc) }.filter { $0.uid == uid }
    }

    private func instance(of entry: DesktopEntry, _ record: ProcessRecord, unit: String?, evidence: RunningApp.Evidence) -> RunningApp {
        RunningApp(
            desktopID: entry.id, pid: record.pid, directory: record.directory, commandLine: record.commandLine,
            openedItems: Self.existingItems(entry.exec?.openedItems(in: record.commandLine) ?? [], directory: record.directory),
            unit: unit, evidence: evidence, startTime: record.startTime)
    }

    /// The `items` that are URLs, or files that still exist (made absolute
    /// against `directory`).
    static func existingItems(_ items: [String], directory: String?) -> [String] {
        items.compactMap { item in
            if item.contains("://") {
                if item.hasPrefix("file://"), let url = URL(string: item), !FileManager.default.fileExists(atPath: url.path) { return nil }
                return item
            }
            let path = item.hasPrefix("/") ? item : directory.map { $0 + "/" + item } ?? item
            return path.hasPrefix("/") && FileManager.default.fileExists(atPath: path) ? path : nil
        }
    }
}
