import Foundation

/// The hardening of restored's installed unit, read from its `[Service]`
/// section, to be applied to the run's restored with `systemd-run
/// --property=`: what a plugin meets when the user manager runs restored.
///
/// Only the settings in ``names`` are taken: they are what confines
/// restored and everything it forks (seccomp, `NoNewPrivileges`,
/// `MemoryDenyWriteExecute` …) and how its stop goes (`KillMode`,
/// `TimeoutStopSec`). The rest of the unit (`Type=notify`, `ExecStart`,
/// `Restart`, the watchdog) is about running the installed daemon, not
/// about what a plugin may do. Settings that systemd keeps as lists
/// (``listNames``) are taken in order, an empty assignment clearing the
/// ones before it, as systemd reads them; for the others the last
/// assignment wins. Drop-ins count: `systemctl --user cat` prints them
/// after the unit.
struct SandboxProperties: Sendable {
    /// The settings applied, in the order systemd would read them.
    static let names = [
        "NoNewPrivileges", "LockPersonality", "RestrictRealtime", "RestrictSUIDSGID", "RestrictNamespaces",
        "SystemCallArchitectures", "MemoryDenyWriteExecute", "RestrictAddressFamilies", "SystemCallFilter",
        "SystemCallErrorNumber", "UMask", "KillMode", "TimeoutStopSec",
    ]
    /// The settings whose assignments add up instead of replacing each other.
    static let listNames: Set<String> = ["RestrictNamespaces", "SystemCallArchitectures", "RestrictAddressFamilies", "SystemCallFilter"]

    /// Each assignment, as `NAME=VALUE`.
    let assignments: [String]
    /// Where they were read: the unit file, or `systemctl --user cat restored.service`.
    let source: String

    /// The properties of `unitFile`, or of the manager's `restored.service`
    /// when none is named. Without either, a line that says to name the
    /// unit file (the repository's `systemd/restored.service` is not
    /// guessed: a harness that tested another unit than the one installed
    /// would say nothing true).
    static func load(unitFile: String?, manager: UserManager) async throws(PluginTestError) -> SandboxProperties {
        if let unitFile {
            guard let data = FileManager.default.contents(atPath: unitFile) else {
                throw .unitFileUnreadable(reason: "cannot read the unit file \(unitFile); name restored's unit (the repository's systemd/restored.service) with --unit-file")
            }
            return SandboxProperties(assignments: parse(String(decoding: data, as: UTF8.self)), source: unitFile)
        }
        let run = try? await manager.control(["cat", "restored.service"])
        guard let run, run.ending == .exited(0), !run.outputText.isEmpty else {
            let said = run.map { $0.errorText.isEmpty ? "" : " (\($0.errorText.split(separator: "\n").first ?? ""))" } ?? ""
            throw .unitFileUnreadable(reason: "restored.service is not installed in your user manager\(said); pass --unit-file with restored's unit (the repository's systemd/restored.service)")
        }
        return SandboxProperties(assignments: parse(run.outputText), source: "systemctl --user cat restored.service")
    }

    /// The assignments of ``names`` in the `[Service]` sections of `text`
    /// (one unit file, or several as `systemctl cat` prints them).
    static func parse(_ text: String) -> [String] {
        var assignments: [(name: String, value: String)] = []
        var inService = false
        var pending = ""
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = pending + rawLine.trimmingCharacters(in: .whitespaces)
            pending = ""
            if line.hasSuffix("\\") {
                line.removeLast()
                pending = line + " "
                continue
            }
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                inService = line == "[Service]"
                continue
            }
            guard inService, let equals = line.firstIndex(of: "=") else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard names.contains(name) else { continue }
            if value.isEmpty || !listNames.contains(name) {
                assignments.removeAll { $0.name == name }
            }
            if !value.isEmpty { assignments.append((name, value)) }
        }
        return names.flatMap { name in assignments.filter { $0.name == name }.map { "\($0.name)=\($0.value)" } }
    }

    /// The `systemd-run` arguments that apply them.
    var propertyArguments: [String] { assignments.map { "--property=\($0)" } }
}
