import ProcFiles

/// What `/proc` says of one process, read once per scan.
struct ProcessRecord {
    let pid: Int32
    let parent: Int32
    let uid: UInt32
    let startTime: UInt64
    /// The last component of its cgroup: its unit, when it has one.
    let unit: String?
    /// The app slice its unit runs in (`app-org.gnome.Terminal.slice`), when one.
    let appSlice: String?
    let executable: String?
    let commandLine: [String]
    let directory: String?
    let environment: [String: String]

    /// The process `pid` under `proc` when it is user `owner`'s (its real
    /// user); nil when it is another user's, gone or unreadable. Another
    /// user's process costs one `stat`, most often, and never more than its
    /// `status` file: the rest is read only for the user's own.
    init?(pid: Int32, proc: String, owner: UInt32) {
        let base = "\(proc)/\(pid)"
        guard ProcProcess.mayBelong(pid, to: owner, proc: proc), let status = ProcFile.text(atPath: base + "/status") else { return nil }
        guard let uidLine = status.split(separator: "\n").first(where: { $0.hasPrefix("Uid:") }),
              let uid = uidLine.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().first.flatMap({ UInt32($0) }),
              uid == owner
        else { return nil }
        guard let fields = ProcProcess.statFields(of: pid, proc: proc), fields.count > 19,
              let parent = Int32(fields[1]), let start = UInt64(fields[19])
        else { return nil }
        self.pid = pid
        self.parent = parent
        self.uid = uid
        startTime = start
        let cgroup = ProcFile.text(atPath: base + "/cgroup") ?? ""
        unit = ProcessRecord.unit(cgroup: cgroup)
        appSlice = ProcessRecord.path(cgroup: cgroup)?.split(separator: "/").dropLast().last { $0.hasPrefix("app-") && $0.hasSuffix(".slice") && $0 != "app.slice" }.map(String.init)
        executable = ProcProcess.executable(of: pid, proc: proc)
        commandLine = ProcProcess.commandLine(of: pid, proc: proc) ?? []
        directory = ProcProcess.directory(of: pid, proc: proc)
        environment = ProcProcess.environment(of: pid, prefix: "GIO_LAUNCHED_DESKTOP_FILE", proc: proc)
    }

    /// The unit in `/proc/PID/cgroup`: the last component of the unified
    /// hierarchy's path (`0::`), else of systemd's own (`name=systemd`).
    static func unit(cgroup: String) -> String? {
        guard let path = path(cgroup: cgroup), let last = path.split(separator: "/").last,
              last.hasSuffix(".scope") || last.hasSuffix(".service") else { return nil }
        return String(last)
    }

    /// The cgroup path systemd keeps units in: the unified hierarchy's
    /// (`0::`) when it is not the root, else systemd's own (`name=systemd`).
    static func path(cgroup: String) -> Substring? {
        var unified: Substring?
        var named: Substring?
        for line in cgroup.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            if parts[0] == "0", parts[1].isEmpty { unified = parts[2] }
            if parts[1] == "name=systemd" { named = parts[2] }
        }
        return [unified, named].compactMap { $0 }.first { $0 != "/" }
    }
}
