import Foundation
import SystemPackage
import Testing
import TmuxControl

/// Records of fields read back exactly from what each tmux release prints:
/// the bytes as they are (up to 3.3a, 3.6 and later) and vis(3)'s escapes
/// (3.4, 3.5, 3.5a), written here as those releases write them.
@Suite struct TmuxRecordFormatTests {
    let counts: [Character: Int] = ["P": 2, "S": 1]

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("What 3.3a and 3.6 and later print: q:'s backslashes undone, control characters, tabs and line feeds kept as they are")
    func rawBytes() throws {
        // A title `ti\037tle` typed by the user (tmux keeps titles printable),
        // a path holding U+001F, a tab, a line feed, `|` and a backslash.
        let output = bytes("P|ti\\\\037tle|/tmp/d\u{1F}x\\\\y\t\nz\\|w\\ v|\nS|3.3a|\n")
        let records = try TmuxRecordFormat.quoted.records(of: output, fieldCounts: counts)
        #expect(records == [["P", "ti\\037tle", "/tmp/d\u{1F}x\\y\t\nz|w v"], ["S", "3.3a"]])
    }

    @Test("What 3.4 and 3.5 print through vis: octal and C escapes undone, and a backslash the user typed before 037 stays a backslash (R1: a session comes back exactly)")
    func visEscaped() throws {
        // The same fields as above, as tmux 3.5a writes them: U+001F is
        // `\037`, a carriage return `\r`, a byte that is no UTF-8 `\303`;
        // tabs and line feeds stay; q:'s `\\` goes through vis untouched.
        let output = bytes("P|ti\\\\037tle|/tmp/d\\037x\\\\y\t\nz\\|w\\ v\\r\\303|\nS|3.5a|\n")
        let records = try TmuxRecordFormat.quoted.records(of: output, fieldCounts: counts)
        #expect(records.count == 2)
        #expect(records[0][1] == "ti\\037tle")
        // A lone byte that is no UTF-8 is read back as that byte (shown as
        // U+FFFD once the field is text).
        #expect(records[0][2] == "/tmp/d\u{1F}x\\y\t\nz|w v\r\u{FFFD}")
        #expect(records[1] == ["S", "3.5a"])
        // UTF-8 is written as it is by every release.
        #expect(try TmuxRecordFormat.quoted.records(of: bytes("S|작업 ü|\n"), fieldCounts: counts) == [["S", "작업 ü"]])
    }

    @Test("An escape no tmux release writes, a record cut short, and a record of unknown kind are each one line naming the record")
    func unreadable() {
        let cases: [(String, String)] = [
            ("S|3.9\\q|\n", "an escape no tmux release writes, \\q, in field 1"),
            ("S|3.5a|\nP|title|", "record 2 cannot be read (it ends inside field 2"),
            ("S|3.5a|extra|\n", "more fields than the 1 asked for"),
            ("X|1|\n", "expected a session, window or pane record"),
            ("S\u{1F}3.5a\n", "expected a session, window or pane record"),
        ]
        for (output, expected) in cases {
            let failure = #expect(throws: TmuxRecordFormat.Failure.self) {
                try TmuxRecordFormat.quoted.records(of: bytes(output), fieldCounts: counts)
            }
            #expect(failure?.description.contains(expected) == true, "\(failure?.description ?? "no failure") for \(output)")
            #expect(failure?.description.contains("\n") == false)
        }
    }

    @Test("Before tmux 2.9 (no q:) records are lines of fields separated by U+001F; 2.9 and later, and an unknown version, are quoted")
    func plainBeforeQuoting() throws {
        #expect(TmuxRecordFormat(for: TmuxVersion(major: 2, minor: 8)) == .plain)
        #expect(TmuxRecordFormat(for: TmuxVersion(major: 2, minor: 9)) == .quoted)
        #expect(TmuxRecordFormat(for: TmuxVersion(major: 3, minor: 5)) == .quoted)
        #expect(TmuxRecordFormat(for: nil) == .quoted)
        #expect(TmuxRecordFormat.plain.template(kind: "P", fields: [.text("pane_title"), .number("pane_pid")]) == "P\u{1F}#{pane_title}\u{1F}#{pane_pid}")
        #expect(TmuxRecordFormat.quoted.template(kind: "P", fields: [.text("pane_title"), .number("pane_pid")]) == "P|#{q:pane_title}|#{pane_pid}|")
        #expect(try TmuxRecordFormat.plain.records(of: bytes("P\u{1F}a b\u{1F}12\n"), fieldCounts: counts) == [["P", "a b", "12"]])
    }
}
