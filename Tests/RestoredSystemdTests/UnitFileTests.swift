// systemd/: the user unit passes systemd-analyze verify; the D-Bus activation file matches it.

import Foundation
import Testing
import ProcessSpawning

@Suite("systemd unit files")
struct UnitFileTests {
    /// The package's top-level `systemd/` directory, found from this source file.
    static let unitDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("systemd").path

    /// `key=value` assignments of an INI-style unit file, by section.
    static func assignments(in text: String) -> [String: [String: [String]]] {
        var sections: [String: [String: [String]]] = [:]
        var section = ""
        for rawLine in text.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals]), value = String(line[line.index(after: equals)...])
            sections[section, default: [:]][key, default: []].append(value)
        }
        return sections
    }

    /// The full path of `program` in `PATH` (plus the sbin directories), or nil.
    static func findExecutable(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]
        return directories.map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test("restored.service is a notify user service with watchdog, restart and install section")
    func unitSettings() throws {
        let text = try String(contentsOfFile: "\(Self.unitDirectory)/restored.service", encoding: .utf8)
        let unit = Self.assignments(in: text)
        let service = try #require(unit["Service"])
        #expect(service["Type"] == ["notify"])
        #expect(service["BusName"] == ["org.restored1"])
        #expect(service["ExecStart"] == ["/usr/local/bin/restored"])
        #expect(service["WatchdogSec"] == ["30s"])
        #expect(service["Restart"] == ["on-failure"])
        #expect(service["TimeoutStopSec"] == ["20s"])
        // The plugin hosts must live through the SIGTERM of a stop: they do its save.
        #expect(service["KillMode"] == ["mixed"])
        #expect(service["NoNewPrivileges"] == ["yes"])
        #expect(service["UMask"] == ["0077"])
        #expect(unit["Install"]?["WantedBy"] == ["default.target"])
        // Settings that need privileges a user manager lacks must stay out.
        for privileged in ["User", "ProtectSystem", "ProtectHome", "PrivateTmp", "CapabilityBoundingSet", "ProtectProc"] {
            #expect(service[privileged] == nil, "\(privileged)= needs privileges a user manager lacks")
        }
    }

    @Test("org.restored1.service activates restored.service")
    func activationFile() throws {
        let text = try String(contentsOfFile: "\(Self.unitDirectory)/org.restored1.service", encoding: .utf8)
        let file = Self.assignments(in: text)
        #expect(
            file["D-BUS Service"] == [
                "Name": ["org.restored1"], "Exec": ["/usr/local/bin/restored"], "SystemdService": ["restored.service"],
            ]
        )
    }

    @Test("systemd-analyze --user verify accepts restored.service without a word")
    func verify() async throws {
        guard let analyze = Self.findExecutable("systemd-analyze") else {
            Issue.record("systemd-analyze not found: install the Debian package 'systemd' (apt-get install systemd)")
            return
        }
        try await withTemporaryDirectory { directory in
            // ExecStart= must name an existing executable for verify to pass,
            // and the daemon is not installed here: point it at true(1).
            let original = try String(contentsOfFile: "\(Self.unitDirectory)/restored.service", encoding: .utf8)
            let executable = try #require(Self.findExecutable("true"))
            let unit = original.split(separator: "\n", omittingEmptySubsequences: false)
                .map { $0.hasPrefix("ExecStart=") ? "ExecStart=\(executable)" : String($0) }
                .joined(separator: "\n")
            let unitPath = directory.appending("restored.service")
            try unit.write(toFile: unitPath, atomically: false, encoding: .utf8)

            // `--user` makes verify load the unit as the user manager would.
            // It needs no running manager, only an XDG_RUNTIME_DIR (it fails
            // with "Failed to lookup RuntimeDirectory path" without one, as
            // under CI or root), so give it a private one.
            let runtimeDirectory = directory.appending("runtime")
            try FileManager.default.createDirectory(
                atPath: runtimeDirectory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700]
            )
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_RUNTIME_DIR"] = runtimeDirectory
            environment["SYSTEMD_LOG_COLOR"] = "0"

            let run = try ProgramRun.run(analyze, arguments: ["systemd-analyze", "--user", "verify", unitPath], environment: environment, timeout: .seconds(60))
            let text = run.outputText + String(decoding: run.errors, as: UTF8.self)
            #expect(run.ending == .exited(0), "systemd-analyze --user verify failed:\n\(text)")
            // verify exits 0 even for unknown keys or unparsable values, so any output is a finding.
            #expect(text.isEmpty, "systemd-analyze --user verify complained:\n\(text)")
        }
    }
}
