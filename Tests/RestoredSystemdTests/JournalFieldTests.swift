// The journal fields SystemdLogHandler sends, checked without a journal.

import Logging
import Testing

@testable import RestoredSystemd

@Suite("SystemdLogHandler, journal fields")
struct JournalFieldTests {
    func record(_ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata = [:]) -> SystemdLogRecord {
        SystemdLogRecord(
            level: level, message: message, metadata: metadata, file: "RestoredEngine/Engine.swift",
            function: "save(apps:)", line: 42
        )
    }

    @Test("MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, code location, label and metadata fields")
    func fields() {
        let fields = record(.warning, "Saved\nwith a warning", ["app": "org.example.Notes", "bytes": "1024"])
            .journalFields(syslogIdentifier: "restored", label: "restored.engine")
        #expect(
            fields == [
                "MESSAGE=Saved\nwith a warning",
                "PRIORITY=4",
                "SYSLOG_IDENTIFIER=restored",
                "CODE_FILE=RestoredEngine/Engine.swift",
                "CODE_LINE=42",
                "CODE_FUNC=save(apps:)",
                "LOGGER=restored.engine",
                "APP=org.example.Notes",
                "BYTES=1024",
            ]
        )
    }

    @Test("priorities follow syslog: critical 2 ... debug and trace 7")
    func priorities() {
        let expected: [(Logger.Level, Int)] = [
            (.critical, 2), (.error, 3), (.warning, 4), (.notice, 5), (.info, 6), (.debug, 7), (.trace, 7),
        ]
        for (level, priority) in expected {
            let fields = record(level, "m").journalFields(syslogIdentifier: "restored", label: "l")
            #expect(fields.contains("PRIORITY=\(priority)"), "\(level)")
        }
    }

    @Test("metadata keys become valid journal field names")
    func fieldNames() {
        let cases: [(String, String?)] = [
            ("app", "APP"),
            ("appID", "APPID"),
            ("app-id", "APP_ID"),
            ("app.id", "APP_ID"),
            ("_PID", "PID"),
            ("__x", "X"),
            ("_", nil),
            ("", nil),
            ("élan", "LAN"),
            ("2fa", "X_2FA"),
            ("message", "X_MESSAGE"),
            ("priority", "X_PRIORITY"),
            (String(repeating: "k", count: 100), String(repeating: "K", count: 64)),
        ]
        for (key, name) in cases {
            #expect(SystemdLogRecord.journalFieldName(forMetadataKey: key) == name, "key \(key)")
        }
    }

    @Test("a metadata key that sanitises to nothing is left out; one named like ours is prefixed")
    func collisions() {
        let fields = record(.info, "m", ["_": "dropped", "message": "kept"])
            .journalFields(syslogIdentifier: "restored", label: "l")
        #expect(fields.filter { $0.hasPrefix("MESSAGE=") } == ["MESSAGE=m"])
        #expect(fields.contains("X_MESSAGE=kept"))
        #expect(!fields.contains { $0.hasSuffix("=dropped") })
    }
}
