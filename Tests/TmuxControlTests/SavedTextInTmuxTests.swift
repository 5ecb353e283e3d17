import Foundation
import RestoredTestSupport
import SavedText
import SystemPackage
import Testing
import TmuxControl
import TerminalPrograms

/// How saved strings reach tmux and the pane's shell: as literals, checked
/// against what tmux writes, never read as code (`docs/security.md`).
@Suite struct SavedTextInTmuxTests {
    @Test("A string goes to tmux as a literal where that tmux version expands formats, as it is where it does not")
    func literals() {
        let hostile = "a #(touch x) #{pane_id} ## b"
        let escaped = "a ##(touch x) ##{pane_id} #### b"
        let old = TmuxVersion(major: 2, minor: 6), current = TmuxVersion(major: 3, minor: 3)
        #expect(TmuxLiteral.text(hostile, for: .title, version: current) == escaped)
        #expect(TmuxLiteral.text(hostile, for: .windowName, version: current) == escaped)
        #expect(TmuxLiteral.text(hostile, for: .sessionName, version: current) == escaped)
        #expect(TmuxLiteral.text(hostile, for: .startDirectory, version: current) == escaped)
        #expect(TmuxLiteral.text(hostile, for: .title, version: nil) == escaped)
        // tmux 2.6 took names and titles as they are, and directories as formats.
        #expect(TmuxLiteral.text(hostile, for: .title, version: old) == hostile)
        #expect(TmuxLiteral.text(hostile, for: .windowName, version: old) == hostile)
        #expect(TmuxLiteral.text(hostile, for: .startDirectory, version: old) == escaped)
        #expect(TmuxLiteral.text("plain", for: .windowName, version: current) == "plain")
    }

    @Test("A name as tmux keeps it (escaped) goes back as the text that makes it again: window names in every version, session names from 3.2; a backslash before anything tmux does not write stays")
    func keptNames() {
        // Kept: a backslash as \\, a tab as \t, é as its UTF-8 bytes, U+0001 as \001.
        let kept = #"a\\b\t\303\251\001 #x"#
        #expect(TmuxName.unescaped(kept) == "a\\b\té\u{01} #x")
        #expect(TmuxName.unescaped(#"odd\q\"#) == #"odd\q\"#)
        #expect(TmuxName.unescaped(#"\000nul"#) == #"\000nul"#)
        #expect(TmuxName.unescaped("plain") == "plain")
        let v31 = TmuxVersion(major: 3, minor: 1), v32 = TmuxVersion(major: 3, minor: 2)
        #expect(TmuxLiteral.text(#"w\\x#"#, for: .windowName, version: v31) == #"w\x##"#)
        #expect(TmuxLiteral.text(#"s\\x"#, for: .sessionName, version: v31) == #"s\\x"#)
        #expect(TmuxLiteral.text(#"s\\x"#, for: .sessionName, version: v32) == #"s\x"#)
        #expect(TmuxLiteral.text(#"s\\x"#, for: .sessionName, version: nil) == #"s\x"#)
        // Titles are kept as given.
        #expect(TmuxLiteral.text(#"t\\x"#, for: .title, version: v32) == #"t\\x"#)
    }

    @Test("Layouts: those tmux writes are taken with their pane count; a wrong checksum, a malformed or nested-too-deep one is refused (tmux 3.3a's server crashes on `select-layout x`)")
    func layouts() throws {
        for (layout, panes) in [
            ("b25d,80x24,0,0,1", 1),
            ("5a3e,160x48,0,0{80x48,0,0,0,79x48,81,0[79x24,81,0,1,79x23,81,25,2]}", 3),
        ] {
            let body = layout.dropFirst(5)
            let fixed = String(format: "%04x,", TmuxLayout.checksum(of: Array(body.utf8))) + body
            #expect(TmuxLayout(fixed)?.paneCount == panes, "\(fixed)")
            // The same body with any other checksum.
            let wrong = String(format: "%04x,", (TmuxLayout.checksum(of: Array(body.utf8)) &+ 1)) + body
            #expect(TmuxLayout(wrong) == nil)
        }
        for malformed in ["", "x", "#", "#(touch x)", "1", "a,", "abcd,", "abcd,80x24", "abcd,80x24,0,0", "abcd,80x24,0,0,1,", "abcd,80x24,0,0{}",
                          "abcd,80x24,0,0{80x24,0,0,1", "abcd,-1x24,0,0,1", "abcd,80x24,0,0,1;touch x", "tiled"] {
            let body = Array(malformed.utf8.dropFirst(min(5, malformed.utf8.count)))
            // Even with the right checksum.
            let signed = malformed.count > 5 ? String(format: "%04x,", TmuxLayout.checksum(of: body)) + String(decoding: body, as: UTF8.self) : malformed
            #expect(TmuxLayout(malformed) == nil, "\(malformed)")
            #expect(TmuxLayout(signed) == nil, "\(signed)")
        }
        var deep = "80x24,0,0,1"
        for _ in 0 ... TmuxLayout.maximumDepth { deep = "80x24,0,0{\(deep)}" }
        #expect(TmuxLayout(String(format: "%04x,", TmuxLayout.checksum(of: Array(deep.utf8))) + deep) == nil)
    }

    @Test("Layouts that a real tmux writes read as layouts")
    func realLayouts() throws {
        let directory = try TemporaryTestDirectory()
        let runner = try #require(TmuxRunner(socket: FilePath(directory.path + "/socket"), environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin", "HOME": directory.path, "SHELL": "/bin/sh"]))
        defer { _ = try? runner.run(["kill-server"]) }
        _ = try runner.run(commands: [
            ["-f", "/dev/null", "new-session", "-d", "-s", "s", "-x", "120", "-y", "40", "/bin/sh"],
            ["split-window", "-h", "-t", "=s:", "/bin/sh"], ["split-window", "-v", "-t", "=s:", "/bin/sh"], ["split-window", "-h", "-t", "=s:", "/bin/sh"],
        ])
        let layout = try runner.run(["display-message", "-p", "-t", "=s:", "#{window_layout}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(TmuxLayout(layout)?.paneCount == 4, "\(layout)")
    }

    @Test("Session and server names that tmux could not have made are refused")
    func names() {
        #expect(TmuxName.isSessionName("work"))
        #expect(TmuxName.isSessionName("a #(touch x) $(id) ; b"))
        for bad in ["", "a:b", "a.b", "a\nb", "a\u{1b}]2;x\u{7}", "a\u{9b}b"] { #expect(!TmuxName.isSessionName(bad), "\(bad)") }
        #expect(TmuxName.isServerName("default"))
        for bad in ["", ".", "..", "a/b", "../x", "a\u{0}b"] { #expect(!TmuxName.isServerName(bad), "\(bad)") }
    }

    @Test("The pane's program starts through a one-use script: the typed line is constant, each argument reaches the program exactly, nothing in them runs")
    func programScript() async throws {
        let directory = try TemporaryTestDirectory()
        let marker = directory.path + "/pwned"
        let output = directory.path + "/argv"
        let hostile = [
            "$(touch \(marker))", "`touch \(marker)`", "'; touch \(marker); '", "\"; touch \(marker); \"", "a\nb; touch \(marker)",
            "\u{15}touch \(marker)\r", "#(touch \(marker))", "x\\'; touch \(marker) #", "''\\''", "", "-e", "%f %k", "$HOME ${HOME}", "\u{1b}]2;t\u{7}",
        ]
        // The program records its argv, one NUL-terminated argument each.
        let arguments = ["/bin/sh", "-c", "printf '%s\\0' \"$@\" > '\(output)'", "sh"] + hostile
        let script = try ProgramScript.write(arguments: arguments, in: FilePath(directory.path))
        #expect(script.typedLine == " /bin/sh \(script.path.string)")
        #expect(SavedText.isTypable(script.path.string))
        var status = stat()
        #expect(lstat(script.path.string, &status) == 0 && status.st_mode & 0o777 == 0o600)

        let run = try await CompletedCommand.run("/bin/sh", [script.path.string], environment: [:], in: URL(fileURLWithPath: directory.path))
        #expect(run.status == 0, "\(run.error)")
        let recorded = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(recorded.split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) } == hostile)
        #expect(!FileManager.default.fileExists(atPath: marker))
        // One use: it removed itself.
        #expect(!FileManager.default.fileExists(atPath: script.path.string))
        // A directory a shell would read is refused, as is a NUL byte.
        #expect(throws: OneUseFileError.unsafeDirectory(FilePath(directory.path + "/a b"))) { try ProgramScript.write(arguments: ["nvim"], in: FilePath(directory.path + "/a b")) }
        #expect(throws: OneUseFileError.invalidCommandLine) { try ProgramScript.write(arguments: ["nvim", "a\0b"], in: FilePath(directory.path)) }
    }

    @Test("The policy drops arguments with control characters, keeps an editor's `scheme:`-like name a file name, and restarts a remote shell only to a plain destination")
    func policy() {
        let policy = ProgramPolicy()
        #expect(policy.command(for: ["nvim", "a\nb", "ok.txt", "x\u{1b}[2J"]) == ["nvim", "ok.txt"])
        #expect(policy.command(for: ["less", "log\n|touch x"]) == ["less"])
        #expect(policy.command(for: ["nvim", "zipfile:/tmp/a.zip::x", "notes:v2.txt", "/abs/a:b", "dir/a:b"]) == ["nvim", "./zipfile:/tmp/a.zip::x", "./notes:v2.txt", "/abs/a:b", "dir/a:b"])
        // What the restored program runs with is what the next save finds: it stays the same.
        #expect(policy.command(for: ["nvim", "./notes:v2.txt"]) == ["nvim", "./notes:v2.txt"])
        #expect(policy.command(for: ["ssh", "me@host.example"]) == ["ssh", "me@host.example"])
        #expect(policy.command(for: ["ssh", "-p", "22", "[::1]"]) == ["ssh", "-p", "22", "[::1]"])
        for destination in ["me@$(touch x)", "-oProxyCommand=x", "host;id", "a b", "me%h@host", "`id`@host", "host\nx"] {
            #expect(policy.command(for: ["ssh", destination]) == nil, "\(destination)")
            #expect(policy.command(for: ["mosh", destination]) == nil, "\(destination)")
        }
        #expect(policy.command(for: ["ssh", "-l", "$(id)", "host"]) == nil)
        #expect(policy.command(for: ["ssh", "-J", "jump;id", "host"]) == nil)
        #expect(policy.command(for: ["ssh", "-p", "22;id", "host"]) == nil)
        #expect(policy.command(for: ["ssh", "-J", "me@jump:22", "host"]) == ["ssh", "-J", "me@jump:22", "host"])
        #expect(ProgramPolicy(option: "+make").command(for: ["make", "a\u{15}b", "test"]) == ["make", "test"])
    }
}
