import Foundation
import RestoredTestSupport
import Testing

/// `restored-ctl` without restored running: reading archives directly,
/// refusing bad input, and saying when the daemon is unreachable.
@Suite struct OfflineCommandTests {
    @Test("apps, show and verify read the archives directly, say so, and print what Expected/ holds")
    func humanOutput() async throws {
        let fixture = try await ControlFixture.make()
        try fixture.writeNotesArchive()
        let apps = try await fixture.ctl("apps", "--state-dir", fixture.state)
        #expect(apps.status == 0, "\(apps.error)")
        try ControlFixture.expectMatchesExpected(apps.output, "apps-offline")

        let show = try await fixture.ctl("show", ControlFixture.notes, "--state-dir", fixture.state)
        #expect(show.status == 0, "\(show.error)")
        try ControlFixture.expectMatchesExpected(show.output, "show")
        // R15: a record of restore attempts that cannot be read counts one, and show says why.
        let record = fixture.state + "/" + ControlFixture.notes + "/archive.attempts"
        try Data("not a record".utf8).write(to: URL(fileURLWithPath: record))
        let damaged = try await fixture.ctl("show", ControlFixture.notes, "--state-dir", fixture.state)
        #expect(damaged.output.contains("restore attempts 1 (its record, archive.attempts, cannot be read: restored-ctl restore --force \(ControlFixture.notes) writes it anew)"), "\(damaged.output)")
        try FileManager.default.removeItem(atPath: record)

        let verify = try await fixture.ctl("verify", "--state-dir", fixture.state)
        #expect(verify.status == 0, "\(verify.error)")
        try ControlFixture.expectMatchesExpected(verify.output, "verify-ok")

        // Without --state-dir and without restored, the default directory is read and that is said.
        let defaults = try await fixture.ctl("apps", environment: ["XDG_STATE_HOME": fixture.root])
        #expect(defaults.status == 0)
        #expect(defaults.error == "restored-ctl: restored is not running; read the archives in \(fixture.root)/restored directly\n")
    }

    @Test("--json of apps, show, dump and verify parses back with the documented shape")
    func json() async throws {
        let fixture = try await ControlFixture.make()
        try fixture.writeNotesArchive()

        let apps = try Self.parse(try await fixture.ctl("apps", "--json", "--state-dir", fixture.state)) as? [[String: Any]]
        let notes = try #require(apps?.first)
        #expect(notes["app"] as? String == ControlFixture.notes)
        #expect(notes["generation"] as? Int == 2)
        #expect(notes["generationFile"] as? String == "archive")
        #expect(notes["ignoreSnapshot"] as? Bool == true)
        #expect(notes["archiveTime"] as? String == "2025-11-21T04:40:00.000Z")
        #expect(notes["hasArchive"] as? Bool == true)
        // Absent values are null, never missing keys.
        for key in ["plugin", "saving", "problem", "last"] {
            #expect(notes[key] is NSNull, "\(key) should be null")
        }

        let show = try Self.parse(try await fixture.ctl("show", ControlFixture.notes, "--json", "--state-dir", fixture.state)) as? [String: Any]
        let objects = try #require(show?["objects"] as? [[String: Any]])
        #expect(objects.map { $0["path"] as? String } == ["Main", "Main/List", "Main/Editor", "Main/Find"])
        #expect(objects[3]["kind"] as? String == "presented")
        let editorKeys = try #require(objects[2]["keys"] as? [[String: Any]])
        #expect(editorKeys.map { $0["type"] as? String } == ["string", "reference", "date"])

        let dump = try Self.parse(try await fixture.ctl("dump", ControlFixture.notes, "--state-dir", fixture.state)) as? [String: Any]
        let dumped = try #require(dump?["objects"] as? [[String: Any]])
        let editorState = try #require(dumped[2]["state"] as? [[String: Any]])
        #expect(editorState[0]["value"] as? String == "before the reboot")
        #expect(editorState[1]["value"] as? String == "Main/List")
        let frame = try #require((dumped[0]["state"] as? [[String: Any]])?.first?["value"] as? [[String: Any]])
        #expect(frame.map { $0["value"] as? Double } == [0, 0, 800, 600])
        let snapshot = try #require(dump?["snapshot"] as? [String: Any])
        #expect(snapshot["size"] as? Int == 2048)
        #expect(Data(base64Encoded: snapshot["data"] as? String ?? "")?.count == 2048)

        let verify = try Self.parse(try await fixture.ctl("verify", "--json", "--state-dir", fixture.state)) as? [[String: Any]]
        #expect(verify?.first?["ok"] as? Bool == true)
        #expect((verify?.first?["previous"] as? [String: Any])?["generation"] as? Int == 1)

        // R15: a record of restore attempts that cannot be read counts one, and each output says it is the record.
        #expect(notes["restoreAttempts"] as? Int == 0)
        #expect(notes["restoreAttemptRecordDamaged"] as? Bool == false)
        #expect(show?["restoreAttemptRecordDamaged"] as? Bool == false)
        #expect(dump?["restoreAttemptRecordDamaged"] as? Bool == false)
        try Data("not a record".utf8).write(to: URL(fileURLWithPath: fixture.state + "/" + ControlFixture.notes + "/archive.attempts"))
        let damagedApps = try Self.parse(try await fixture.ctl("apps", "--json", "--state-dir", fixture.state)) as? [[String: Any]]
        let damagedShow = try Self.parse(try await fixture.ctl("show", ControlFixture.notes, "--json", "--state-dir", fixture.state)) as? [String: Any]
        let damagedDump = try Self.parse(try await fixture.ctl("dump", ControlFixture.notes, "--state-dir", fixture.state)) as? [String: Any]
        for (output, fields) in [("apps", damagedApps?.first), ("show", damagedShow), ("dump", damagedDump)] {
            #expect(fields?["restoreAttempts"] as? Int == 1, "\(output)")
            #expect(fields?["restoreAttemptRecordDamaged"] as? Bool == true, "\(output)")
        }
    }

    @Test("a corrupt archive: verify and show exit 4 naming it")
    func corrupt() async throws {
        let fixture = try await ControlFixture.make()
        try fixture.writeNotesArchive()
        try fixture.writeBrokenArchive()

        let verify = try await fixture.ctl("verify", "--state-dir", fixture.state)
        #expect(verify.status == 4)
        try ControlFixture.expectMatchesExpected(verify.output, "verify-corrupt")
        #expect(verify.error == "restored-ctl: corrupt archive: org.example.Broken (restored-ctl discard org.example.Broken removes it; a restore reads the other generation when it is ok)\n")

        let show = try await fixture.ctl("show", ControlFixture.broken, "--state-dir", fixture.state)
        #expect(show.status == 4)
        #expect(show.error.hasPrefix("restored-ctl: ") && show.error.contains(ControlFixture.broken) && show.error.split(separator: "\n").count == 1, "\(show.error)")

        // Only the named app is checked.
        let one = try await fixture.ctl("verify", ControlFixture.notes, "--state-dir", fixture.state)
        #expect(one.status == 0)
    }

    @Test("bad input: an invalid app id exits 2 before touching anything; an unknown app or option is one clear line")
    func badInput() async throws {
        let fixture = try await ControlFixture.make()
        try fixture.writeNotesArchive()
        let before = try FileManager.default.subpathsOfDirectory(atPath: fixture.state)

        // Without a bus at all: the id is refused first.
        let invalid = try await fixture.ctl("discard", "--yes", "org..bad", environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"])
        #expect(invalid.status == 2)
        #expect(invalid.error == "restored-ctl: invalid app id \"org..bad\": an app id cannot start or end with a dot or have two dots in a row, like org.example.Notes\n")
        #expect(try await fixture.ctl("show", "no-dots", "--state-dir", fixture.state).status == 2)
        #expect(try await fixture.ctl("save", "org.example.", environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]).status == 2)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: fixture.state) == before)

        let unknown = try await fixture.ctl("show", "org.example.Nothing", "--state-dir", fixture.state)
        #expect(unknown.status == 1)
        #expect(unknown.error == "restored-ctl: no archive for org.example.Nothing in \(fixture.state) (known apps: restored-ctl apps)\n")

        let option = try await fixture.ctl("apps", "--colour")
        #expect(option.status == 2)
        #expect(option.error == "restored-ctl: Unknown option '--colour' (restored-ctl --help says more)\n")

        let missing = try await fixture.ctl("verify", "org.example.Nothing", "--state-dir", fixture.state)
        #expect(missing.status == 1)
        #expect(missing.error == "restored-ctl: no archive for org.example.Nothing in \(fixture.state) (known apps: restored-ctl apps)\n")

        // discard asks on a terminal; without one (stdin is /dev/null here) it needs --yes.
        let unconfirmed = try await fixture.ctl("discard", ControlFixture.notes, "--state-dir", fixture.state)
        #expect(unconfirmed.status == 2)
        #expect(unconfirmed.error.contains("--yes"))
        #expect(FileManager.default.fileExists(atPath: fixture.state + "/\(ControlFixture.notes)/archive"))
    }

    @Test("without restored: status, plugins, save and restore exit 3 saying how to start it; discard and ignore-snapshot work on the files")
    func daemonAbsent() async throws {
        let fixture = try await ControlFixture.make()
        try fixture.writeNotesArchive()
        for command in [["status"], ["plugins"], ["save"], ["restore", ControlFixture.notes]] {
            let run = try await CompletedCommand.run(
                BuildProducts.executable("restored-ctl"), command, environment: fixture.environment, in: fixture.bus.directory
            )
            #expect(run.status == 3, "\(command)")
            #expect(run.error == "restored-ctl: restored is not running (start it: systemctl --user start restored)\n", "\(command)")
        }
        let noBus = try await fixture.ctl("status", environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"])
        #expect(noBus.status == 3)
        #expect(noBus.error.hasPrefix("restored-ctl: cannot reach the session bus"))

        let environment = ["XDG_STATE_HOME": fixture.root, "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]
        try FileManager.default.moveItem(atPath: fixture.state, toPath: fixture.root + "/restored")
        let clear = try await fixture.ctl("ignore-snapshot", ControlFixture.notes, "--clear", environment: environment)
        #expect(clear.status == 0, "\(clear.error)")
        #expect(clear.error.contains("restored is not running"))
        let apps = try Self.parse(try await fixture.ctl("apps", "--json", environment: environment)) as? [[String: Any]]
        #expect(apps?.first?["ignoreSnapshot"] as? Bool == false)
        let discard = try await fixture.ctl("discard", "--yes", ControlFixture.notes, environment: environment)
        #expect(discard.status == 0, "\(discard.error)")
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/restored/\(ControlFixture.notes)"))
        let again = try await fixture.ctl("discard", "--yes", ControlFixture.notes, environment: environment)
        #expect(again.status == 1)
        #expect(again.error.hasSuffix("no archive for org.example.Notes (known apps: restored-ctl apps)\n"))
    }

    @Test("shell completions for bash, zsh and fish are generated from the parser and know every command")
    func completions() async throws {
        let fixture = try await ControlFixture.make()
        for shell in ["bash", "zsh", "fish"] {
            let run = try await fixture.ctl("--generate-completion-script", shell)
            #expect(run.status == 0, "\(shell): \(run.error)")
            for command in ["status", "apps", "plugins", "save", "restore", "discard", "ignore-snapshot", "show", "dump", "verify", "doctor", "reload"] {
                #expect(run.output.contains(command), "\(shell) completion lacks \(command)")
            }
            #expect(run.output.contains("state-dir"), "\(shell)")
        }
    }

    static func parse(_ run: CompletedCommand) throws -> Any {
        #expect(run.status == 0, "\(run.error)")
        return try JSONSerialization.jsonObject(with: Data(run.output.utf8))
    }
}
