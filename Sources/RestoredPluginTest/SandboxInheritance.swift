/// Whether the processes a restore started under `--sandbox` escaped
/// restored's sandbox, as they must: an app started from inside restored
/// (a plugin host's fork) keeps its seccomp filter, `NoNewPrivileges`
/// and `MemoryDenyWriteExecute` for its whole life, and everything it runs
/// inherits them (a browser's sandbox, a JIT, `sudo` fail in it).
///
/// Looked at: every process of the manager's `app-restored-*` units that
/// appeared during the run (the toolkit's launcher names the units it
/// starts so), and every process left in the cgroup of restored's own
/// unit but restored and its plugin hosts (what a plugin started itself,
/// or the launcher started detached for want of a user manager).
struct SandboxInheritance: Sendable {
    /// One process looked at.
    struct Finding: Sendable {
        /// The process.
        let process: ProcessRecord
        /// Where it runs: a unit of the manager.
        let unit: String
        /// Its `Seccomp:` mode (0: no filter).
        let seccomp: Int?
        /// Its `NoNewPrivs:`.
        let noNewPrivileges: Bool?

        /// Whether it runs under restored's sandbox.
        var inherited: Bool { (seccomp ?? 0) != 0 || noNewPrivileges == true }

        /// One line for people.
        var line: String {
            let confinement = "Seccomp \(seccomp.map(String.init) ?? "?"), NoNewPrivs \(noNewPrivileges.map { $0 ? "1" : "0" } ?? "?")"
            guard inherited else { return "\(process) in \(unit): outside restored's sandbox (\(confinement))" }
            return "\(process) in \(unit) runs under restored's sandbox (\(confinement)): the plugin started it from inside restored; "
                + "start it through the toolkit's AppLauncher (or the user manager: StartTransientUnit, systemd-run --user) instead"
        }
    }

    /// The unit pattern of what the toolkit's launcher starts.
    static let launchedUnits = "app-restored-*"

    /// The processes of the `app-restored-*` units not in `unitsBefore`, and
    /// those of `daemonUnit` but `daemonPID` and its plugin hosts.
    static func inspect(manager: UserManager, unitsBefore: Set<String>, daemonUnit: String?, daemonPID: Int32?) async -> [Finding] {
        var findings: [Finding] = []
        for unit in await manager.units(matching: launchedUnits) where !unitsBefore.contains(unit) {
            for pid in await manager.processes(of: unit) {
                findings.append(finding(ProcessRecord(pid: pid), unit: unit))
            }
        }
        if let daemonUnit {
            for pid in await manager.processes(of: daemonUnit) where pid != daemonPID {
                let record = ProcessRecord(pid: pid)
                if record.executable.map({ $0.hasSuffix("/restored-plugin-host") }) == true { continue }
                findings.append(finding(record, unit: daemonUnit))
            }
        }
        return findings
    }

    private static func finding(_ record: ProcessRecord, unit: String) -> Finding {
        Finding(process: record, unit: unit, seccomp: record.seccomp, noNewPrivileges: record.noNewPrivileges)
    }
}
