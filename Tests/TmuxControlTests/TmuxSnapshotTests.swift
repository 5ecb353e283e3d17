import Foundation
import UnitLaunching
import RestoredTestSupport
import SystemPackage
import Testing
import TmuxControl
import TerminalPrograms

/// Reading tmux servers: a real tmux on private sockets (`TMUX_TMPDIR` of
/// the test), and hostile output.
@Suite struct TmuxSnapshotTests {
    /// A private `TMUX_TMPDIR` with one server on it; killed (and its
    /// directory removed) at the end.
    final class Server {
        let root: String
        let environment: [String: String]
        let runner: TmuxRunner

        init(name: String = "default", locale: String? = nil) throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-test-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: root + "/tmux-\(getuid())", withIntermediateDirectories: true)
            chmod(root + "/tmux-\(getuid())", 0o700)
            var environment = ProcessInfo.processInfo.environment
            environment["TMUX_TMPDIR"] = root
            // Panes run a plain shell, never the user's start-up files (a
            // slow .bashrc would decide how long the test takes).
            environment["SHELL"] = "/bin/sh"
            environment["HOME"] = root
            if let locale {
                environment["LC_ALL"] = locale
                environment["LANG"] = locale
            }
            self.environment = environment
            runner = try #require(TmuxRunner(socket: FilePath(root + "/tmux-\(getuid())/\(name)"), environment: environment))
        }

        func tmux(_ arguments: String...) throws {
            _ = try runner.run(arguments)
        }

        deinit {
            _ = try? runner.run(["kill-server"])
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    @Test("Sessions, windows in order with names and layouts, zoom, active and last windows and panes, directories, titles and programs")
    func realServer() throws {
        let server = try Server()
        let a = server.root + "/dir a", b = server.root + "/dir b"
        for directory in [a, b] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        try "one\ntwo\n".write(toFile: a + "/notes.txt", atomically: true, encoding: .utf8)
        try server.tmux("new-session", "-d", "-s", "work", "-n", "edit", "-c", a, "-x", "120", "-y", "40")
        try server.tmux("split-window", "-h", "-t", "work:edit", "-c", b)
        try server.tmux("select-pane", "-t", "work:edit.1", "-T", "right side")
        try server.tmux("new-window", "-d", "-t", "work:5", "-n", "logs", "-c", b)
        try server.tmux("split-window", "-v", "-t", "work:5", "-c", a)
        try server.tmux("resize-pane", "-Z", "-t", "work:5.1")
        try server.tmux("select-window", "-t", "work:5")
        try server.tmux("select-window", "-t", "work:edit")
        try server.tmux("new-session", "-d", "-s", "other session", "-c", b)
        try server.tmux("new-session", "-d", "-s", "peer", "-t", "work")
        try server.tmux("send-keys", "-t", "work:edit.0", "less notes.txt", "Enter")

        let snapshot = try TmuxSnapshot.read(from: server.runner)
        #expect(snapshot.version.hasPrefix("3."))
        #expect(snapshot.sessions.map(\.name) == ["other session", "peer", "work"])
        let work = try #require(snapshot.sessions.first { $0.name == "work" })
        #expect(work.group == "work")
        #expect(snapshot.sessions.first { $0.name == "other session" }?.group == nil)
        #expect(work.windows.map(\.index) == [0, 5])
        #expect(work.windows.map(\.name) == ["edit", "logs"])
        #expect(work.windows.map(\.automaticRename) == [false, false])
        #expect(work.windows.map(\.active) == [true, false])
        #expect(work.windows.map(\.last) == [false, true])
        let edit = work.windows[0], logs = work.windows[1]
        #expect(edit.layout.contains("{"))
        #expect(!edit.zoomed && logs.zoomed)
        #expect(edit.panes.map(\.index) == [0, 1])
        #expect(edit.panes.map(\.directory) == [a, b])
        #expect(edit.panes[1].title == "right side")
        #expect(edit.panes.map(\.active) == [false, true])
        #expect(logs.panes.map(\.directory) == [b, a])

        // less comes up in its pane: the pane shows it, with its argument.
        // (A hang guard, no speed requirement: a loaded machine starts shells slowly.)
        var program: ForegroundProgram?
        let deadline = ContinuousClock.now + .seconds(60)
        while program == nil && ContinuousClock.now < deadline {
            program = ForegroundProgram.of(panePID: edit.panes[0].pid)
            if program == nil { usleep(20_000) }
        }
        #expect(program?.arguments == ["less", "notes.txt"], "the pane shows: \((try? server.runner.run(["capture-pane", "-p", "-t", "=work:edit.0"])) ?? "?")")
        #expect(ForegroundProgram.of(panePID: edit.panes[1].pid) == nil)

        // The server is found in its TMUX_TMPDIR.
        #expect(TmuxServer.sockets(environment: server.environment).map(\.name) == ["default"])
    }

    @Test("A backslash, a typed \\037, `|`, a tab, a line feed, U+001F and UTF-8 in names, titles and paths read back exactly, for a client whose locale is not UTF-8 (R1)")
    func hostileFields() throws {
        let server = try Server(locale: "C")
        let directory = server.root + "/d\u{1F}x\\y\tz\n|w 작업"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try server.tmux("-f", "/dev/null", "new-session", "-d", "-s", "작업 ü|\\", "-c", directory, "-x", "80", "-y", "20")
        try server.tmux("select-pane", "-t", "$0:0.0", "-T", "ti\\037tle|ü")
        let snapshot = try TmuxSnapshot.read(from: server.runner)
        let session = try #require(snapshot.sessions.first)
        // tmux keeps a session name's backslash as `\\` (its own escape):
        // read as tmux holds it.
        let held = try server.runner.run(["display-message", "-p", "-t", "=\(session.name):", "#{session_name}"])
        #expect(held == session.name + "\n")
        #expect(session.name.hasPrefix("작업 ü|"))
        let pane = try #require(session.windows.first?.panes.first)
        #expect(pane.title == "ti\\037tle|ü")
        #expect(session.directory == directory)
        // The pane's shell reports its directory once it runs.
        var path = pane.directory
        let deadline = ContinuousClock.now + .seconds(30)
        while path != directory, ContinuousClock.now < deadline {
            usleep(50_000)
            path = try #require(try TmuxSnapshot.read(from: server.runner).sessions.first?.windows.first?.panes.first).directory
        }
        #expect(path == directory)
    }

    @Test("No server on a socket is an error naming it; a missing socket directory is no server")
    func noServer() throws {
        let server = try Server(name: "absent")
        #expect(throws: TmuxError.self) { try TmuxSnapshot.read(from: server.runner) }
        #expect(TmuxServer.sockets(environment: ["TMUX_TMPDIR": server.root + "/nowhere"]).isEmpty)
    }

    @Test("The allow-list: editors, pagers and monitors come back; tail only when it follows, emacs only in the terminal; anything else does not")
    func policy() {
        let policy = ProgramPolicy()
        #expect(policy.allows(["nvim", "a.txt"]))
        #expect(policy.allows(["/usr/bin/less", "-R", "log"]))
        #expect(policy.allows(["tail", "-f", "log"]))
        #expect(policy.allows(["tail", "-n", "5", "-F", "log"]))
        #expect(!policy.allows(["tail", "-n", "5", "log"]))
        #expect(policy.allows(["emacs", "-nw", "x"]))
        #expect(!policy.allows(["emacs", "x"]))
        #expect(!policy.allows(["make", "deploy"]))
        #expect(!policy.allows(["rm", "-rf", "/"]))
        // What comes back: the program by name (PATH finds it, not a saved
        // path), and no argument that runs code or holds a secret.
        #expect(policy.command(for: ["/home/u/evil/nvim", "+!touch x", "-c", "!rm", "--cmd", "x", "notes.txt"]) == ["nvim", "!rm", "x", "notes.txt"])
        #expect(policy.command(for: ["vim", "-S", "Session.vim", "scp://host/file", "a b.txt"]) == ["vim", "Session.vim", "a b.txt"])
        #expect(policy.command(for: ["less", "+!touch x", "-R", "log"]) == ["less", "log"])
        #expect(policy.command(for: ["man", "-P", "sh -c x", "3", "printf"]) == ["man", "sh -c x", "3", "printf"])
        #expect(policy.command(for: ["emacs", "-nw", "--eval", "(shell-command \"x\")", "f.el"]) == ["emacs", "-nw", "(shell-command \"x\")", "f.el"])
        #expect(policy.command(for: ["tail", "-n", "50", "-F", "-c", "9", "app.log"]) == ["tail", "-n", "50", "-F", "9", "app.log"])
        #expect(policy.command(for: ["ssh", "-o", "ProxyCommand=touch x", "-oLocalCommand=y", "-F", "cfg", "-p", "2222", "-A", "me@host", "rm", "-rf", "/"])
            == ["ssh", "-p", "2222", "-A", "me@host"])
        #expect(policy.command(for: ["ssh", "-o", "ProxyCommand=x"]) == nil)
        #expect(policy.command(for: ["mosh", "--ssh=touch x", "host", "--", "cmd"]) == ["mosh", "host"])
        #expect(policy.command(for: ["sqlite3", "-cmd", ".shell touch x", "app.db", ".shell y"]) == ["sqlite3", "app.db"])
        #expect(policy.command(for: ["psql", "-h", "db", "-c", "DROP TABLE t", "-U", "me", "shop"]) == ["psql", "-h", "db", "-U", "me", "shop"])
        #expect(policy.command(for: ["mysql", "-pSECRET", "-u", "me", "-e", "DROP", "shop"]) == ["mysql", "-u", "me", "shop"])
        #expect(policy.command(for: ["htop", "-u", "bob"]) == ["htop"])
        #expect(ProgramPolicy(option: "+make").command(for: ["make", "-j4", "test"]) == ["make", "-j4", "test"])
        #expect(!policy.allows([]))
        #expect(ProgramPolicy(option: "+make").allows(["make"]))
        #expect(ProgramPolicy(option: "+make").allows(["vim"]))
        #expect(!ProgramPolicy(option: "vim, nano").allows(["less"]))
    }

    @Test("Pane text is printed back with no control character but line feeds and tabs, and no trailing blank lines")
    func printable() {
        let hostile = "ok\tcolumn\n\u{1B}]52;c;c2VjcmV0\u{07}title\u{1B}[31mred\u{9B}2J\r\nlast  \n\n   \n"
        #expect(PaneContents.printable(hostile) == "ok\tcolumn\n]52;c;c2VjcmV0title[31mred2J\nlast  ")
    }
}

/// A pane's pty size, as a program started in it reads it.
@Suite struct PaneTerminalTests {
    @Test("The pty of a pane gets the pane's size after a split; a process with no terminal has none")
    func ptySize() async throws {
        let server = try TmuxSnapshotTests.Server()
        try server.tmux("new-session", "-d", "-s", "s", "-x", "100", "-y", "30")
        try server.tmux("split-window", "-h", "-t", "=s:0")
        let fields = try server.runner.run(["display-message", "-p", "-t", "=s:0.1", "#{pane_pid} #{pane_width} #{pane_height}"])
            .split(whereSeparator: \.isWhitespace).compactMap { Int32($0) }
        #expect(fields.count == 3)
        // tmux tells the pty a little later (a hang guard, not a speed requirement).
        let deadline = ContinuousClock.now + .seconds(20)
        var size = PaneTerminal.size(ofPanePID: fields[0])
        // (A look may find no size for a moment: it is looked at again.)
        while size.map({ $0 != (Int(fields[1]), Int(fields[2])) }) ?? true, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            size = PaneTerminal.size(ofPanePID: fields[0])
        }
        #expect(size?.columns == Int(fields[1]) && size?.rows == Int(fields[2]))
        #expect(fields[1] < 100)
        #expect(PaneTerminal.size(ofPanePID: -1) == nil)
    }
}

/// Versions as `tmux -V` prints them.
@Suite struct TmuxVersionTests {
    @Test("Releases, release candidates, next- builds, and builds named by no number")
    func parsing() throws {
        #expect(TmuxVersion(parsing: "tmux 3.3a\n") == TmuxVersion(major: 3, minor: 3))
        #expect(TmuxVersion(parsing: "tmux 3.3a")?.description == "3.3a")
        #expect(TmuxVersion(parsing: "tmux next-3.4") == TmuxVersion(major: 3, minor: 4))
        #expect(TmuxVersion(parsing: "tmux 3.2-rc2") == TmuxVersion(major: 3, minor: 2))
        #expect(TmuxVersion(parsing: "tmux 2.10")! > TmuxVersion(major: 2, minor: 9))
        #expect(try #require(TmuxVersion(parsing: "tmux master")) > TmuxVersion(major: 99, minor: 0))
        #expect(try #require(TmuxVersion(parsing: "tmux openbsd-7.4")) > TmuxVersion(major: 99, minor: 0))
        #expect(TmuxVersion(parsing: "screen 4.9") == nil)
        #expect(TmuxVersion(parsing: "tmux") == nil)
        #expect(TmuxVersion(parsing: "tmux 3.1c")! < TmuxFeature.foregroundServer.minimumVersion)
    }

    @Test("The installed tmux names its version")
    func installed() throws {
        let server = try TmuxSnapshotTests.Server()
        #expect(try server.runner.version() >= TmuxVersion(major: 1, minor: 0))
    }
}
