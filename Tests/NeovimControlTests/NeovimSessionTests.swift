import Foundation
import MessagePack
import NeovimControl
import RestoredTestSupport
import SystemPackage
import Testing
import TmuxControl

/// A real Neovim (Debian's `neovim`, installed by the test command), found
/// from `/proc` as the plugin finds it, read and replayed into a second one.
@Suite(.serialized) struct NeovimSessionTests {
    /// A headless Neovim with a private home, stopped (by pid) and its
    /// directory removed at the end.
    final class Editor {
        let process: ChildProcess
        let client: NeovimClient
        let socket: FilePath

        /// The environment of a Neovim with its files under `root`.
        static func environment(root: String) -> [String: String] {
            var environment = ProcessInfo.processInfo.environment
            for variable in ["NVIM", "NVIM_LISTEN_ADDRESS", "TMUX"] { environment[variable] = nil }
            environment["HOME"] = root
            environment["XDG_CONFIG_HOME"] = root + "/config"
            environment["XDG_DATA_HOME"] = root + "/data"
            environment["XDG_STATE_HOME"] = root + "/state"
            environment["XDG_RUNTIME_DIR"] = root
            environment["TMPDIR"] = root
            environment["SHELL"] = "/bin/sh"
            return environment
        }

        init(root: String, swap: Bool = false) throws {
            let executable = try #require(["/usr/bin/nvim", "/usr/local/bin/nvim"].first { FileManager.default.isExecutableFile(atPath: $0) }, "nvim is not installed")
            process = try ChildProcess(executable, ["--headless", "--clean"] + (swap ? [] : ["-n"]), environment: Self.environment(root: root), log: root + "/nvim-\(UUID().uuidString).log")
            // Its server socket comes up as it starts (a hang guard, not a speed requirement).
            var found: FilePath?
            let deadline = ContinuousClock.now + .seconds(20)
            while found == nil, ContinuousClock.now < deadline {
                found = NeovimServer.sockets(ofProcess: process.pid).first
                if found == nil { usleep(20_000) }
            }
            socket = try #require(found, "nvim \(process.pid) listens on no socket")
            client = try NeovimClient(socket: socket, timeout: .seconds(10))
        }

        func command(_ text: String) throws {
            _ = try client.call("nvim_command", [.string(text)])
        }

        deinit { process.stop() }
    }

    let root: String

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("nvim-test-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: root + "/work dir", withIntermediateDirectories: true)
        try (1 ... 300).map { "line \($0)" }.joined(separator: "\n").write(toFile: root + "/work dir/long.txt", atomically: true, encoding: .utf8)
        try "alpha\nbeta\ngamma\n".write(toFile: root + "/work dir/short.txt", atomically: true, encoding: .utf8)
        // A hostile name: spaces, a quote, a bar and a newline, as one file.
        try "x\n".write(toFile: root + "/work dir/a 'b'|c\nd.txt", atomically: true, encoding: .utf8)
        try "listed\n".write(toFile: root + "/work dir/hidden.txt", atomically: true, encoding: .utf8)
    }

    @Test("Tabs, splits, files, cursors, sizes, the current tab and windows and the directory are read, and a second Neovim rebuilt from them reads the same")
    func readAndReplay() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let work = root + "/work dir"
        var expected: NeovimSession
        do {
            let editor = try Editor(root: root)
            _ = try editor.client.call("nvim_set_current_dir", [.string(work)])
            _ = try editor.client.call("nvim_call_function", ["bufadd", [.string(work + "/hidden.txt")]])
            try editor.command("call setbufvar(bufnr('hidden.txt'), '&buflisted', 1)")
            try editor.command("edit long.txt")
            try editor.command("call cursor(120, 3)")
            try editor.command("vsplit short.txt")
            try editor.command("call cursor(2, 1)")
            try editor.command("split")
            _ = try editor.client.call("nvim_win_set_buf", [0, try editor.client.call("nvim_call_function", ["bufadd", [.string(work + "/a 'b'|c\nd.txt")]])])
            try editor.command("tabnew")
            try editor.command("help")
            try editor.command("tabnext 1")
            try editor.command("wincmd l")
            expected = try NeovimSession.read(from: editor.client)
        }
        #expect(expected.directory == work)
        #expect(expected.tabs.count == 2)
        #expect(expected.currentTab == 0)
        #expect(expected.buffers.contains(work + "/hidden.txt"))
        let first = expected.tabs[0]
        guard case .row(let columns) = first.layout, columns.count == 2, case .column(let stacked) = columns[0] else {
            Issue.record("unexpected layout \(first.layout)")
            return
        }
        #expect(stacked.count == 2)
        #expect(first.layout.windows.map(\.file) == [work + "/a 'b'|c\nd.txt", work + "/short.txt", work + "/long.txt"])
        #expect(first.layout.windows[2].line == 120 && first.layout.windows[2].column == 2)
        #expect(first.layout.windows[1].line == 2)
        #expect(first.currentWindow == 2)
        // The help window and the empty one are no files.
        #expect(expected.tabs[1].layout.windows.allSatisfy { $0.file == nil })

        let editor = try Editor(root: root)
        let problems = try expected.replay(into: editor.client)
        #expect(problems.isEmpty)
        let replayed = try NeovimSession.read(from: editor.client)
        #expect(replayed == expected)
        // Nothing saved became a command: the hostile name is one file.
        let names = try editor.client.call("nvim_call_function", ["getbufinfo", []]).arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names?.contains(work + "/a 'b'|c\nd.txt") == true)
    }

    @Test("Calls made in one round trip (nvim_exec_lua, not the deprecated nvim_call_atomic) answer in order, a call with no result in its place, handles as integers that later calls take; the first that fails is said with its method, and nothing after it runs; only vim.api functions are called")
    func callsInOneRoundTrip() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let editor = try Editor(root: root)
        let answers = try editor.client.callAtomic([
            ("nvim_get_current_buf", []), ("nvim_set_var", [.string("restored_test"), .int(7)]), ("nvim_get_var", [.string("restored_test")]),
            ("nvim_call_function", ["getcwd", [-1]]),
        ])
        #expect(answers.count == 4)
        let buffer = try #require(answers[0].intValue)
        #expect(answers[1] == .nil)
        #expect(answers[2].intValue == 7)
        #expect(answers[3].stringValue == FileManager.default.currentDirectoryPath)
        #expect(try editor.client.callAtomic([("nvim_buf_get_name", [.int(Int64(buffer))])]).first?.stringValue == "")
        /// The error a batch of calls ends with (nil when it succeeds).
        func failure(of calls: [(method: String, arguments: [MessagePackValue])]) -> NeovimError? {
            do {
                _ = try editor.client.callAtomic(calls)
                return nil
            } catch {
                return error
            }
        }
        let failed = failure(of: [
            ("nvim_set_var", [.string("restored_first"), .int(1)]), ("nvim_buf_get_name", [.int(999_999)]),
            ("nvim_set_var", [.string("restored_after"), .int(1)]),
        ])
        guard case .answered(let method, let message)? = failed else {
            Issue.record("a failing call was not said: \(String(describing: failed))")
            return
        }
        #expect(method == "nvim_buf_get_name")
        #expect(message.contains("Invalid buffer id"), "\(message)")
        #expect(try editor.client.call("nvim_eval", [.string("[get(g:, 'restored_first'), get(g:, 'restored_after')]")]) == .array([.int(1), .int(0)]))
        let outside = failure(of: [("os.execute", [.string("true")])])
        guard case .answered(let outsideMethod, let outsideMessage)? = outside else {
            Issue.record("a name outside vim.api was called: \(String(describing: outside))")
            return
        }
        #expect(outsideMethod == "os.execute")
        #expect(outsideMessage.contains("no API function"), "\(outsideMessage)")
    }

    @Test("Names Neovim would hand to a handler that runs programs (term://, scp://, man://) are neither saved nor opened: a hostile archive runs nothing")
    func handlerNamesRunNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let work = root + "/work dir"
        let marker = root + "/ran"
        do {
            // A buffer a plugin named like a terminal: not saved.
            let editor = try Editor(root: root)
            try editor.command("edit \(work)/short.txt")
            let scratch = try editor.client.call("nvim_create_buf", [true, false])
            _ = try editor.client.call("nvim_buf_set_name", [scratch, .string("term://touch \(marker)")])
            let saved = try NeovimSession.read(from: editor.client)
            #expect(saved.buffers == [work + "/short.txt"])
        }
        let hostile = NeovimSession(
            directory: "term://touch \(marker)", buffers: ["term://touch \(marker)", "scp://localhost/\(marker)"],
            tabs: [.init(layout: .row([
                .window(.init(file: "term://touch \(marker)", line: 1, column: 0, width: 40, height: 10)),
                .window(.init(file: "man://touch", line: 1, column: 0, width: 39, height: 10)),
                .window(.init(file: "relative/name.txt", line: 1, column: 0, width: 39, height: 10)),
            ]), currentWindow: 0)],
            currentTab: 0)
        let editor = try Editor(root: root)
        let problems = try hostile.replay(into: editor.client)
        #expect(problems.contains { $0.contains("no absolute path") })
        let replayed = try NeovimSession.read(from: editor.client)
        #expect(replayed.tabs[0].layout.windows.map(\.file) == [nil, nil, nil])
        #expect(replayed.buffers.isEmpty)
        usleep(300_000)
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    @Test("Neovim is found by its executable, also started as a vi linked to it; other programs are not Neovim")
    func neovimUnderAnotherName() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let nvim = try #require(["/usr/bin/nvim", "/usr/local/bin/nvim"].first { FileManager.default.isExecutableFile(atPath: $0) })
        try FileManager.default.createSymbolicLink(atPath: root + "/vi", withDestinationPath: nvim)
        let editor = try ChildProcess(root + "/vi", ["--headless", "--clean", "-n"], environment: Editor.environment(root: root), log: root + "/vi.log")
        defer { editor.stop() }
        #expect(NeovimServer.isNeovim(pid: editor.pid))
        #expect(!NeovimServer.isNeovim(pid: getpid()))
        #expect(!NeovimServer.isNeovim(pid: -5))
        // Its socket is found the same way (a hang guard, not a speed requirement).
        let deadline = ContinuousClock.now + .seconds(20)
        while NeovimServer.sockets(ofProcess: editor.pid).isEmpty, ContinuousClock.now < deadline { usleep(20_000) }
        #expect(NeovimServer.sockets(ofProcess: editor.pid).count == 1)
    }

    @Test("A file gone since the save and a line past its end: the window stays, the cursor is clamped, one line says what")
    func changedFiles() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let work = root + "/work dir"
        let session = NeovimSession(
            directory: root + "/gone directory", buffers: [],
            tabs: [.init(layout: .column([
                .window(.init(file: work + "/short.txt", line: 999, column: 0, width: 80, height: 10)),
                .window(.init(file: work + "/deleted.txt", line: 5, column: 0, width: 80, height: 10)),
            ]), currentWindow: 0)],
            currentTab: 0)
        let editor = try Editor(root: root)
        let problems = try session.replay(into: editor.client)
        #expect(problems.count == 1)
        #expect(problems.first?.contains("gone directory") == true)
        let replayed = try NeovimSession.read(from: editor.client)
        #expect(replayed.tabs[0].layout.windows.map(\.file) == [work + "/short.txt", work + "/deleted.txt"])
        #expect(replayed.tabs[0].layout.windows[0].line == 3)
    }

    @Test("A file whose swap file makes Neovim stop for its user ends the replay there with an error, and a read then fails, each at once, not after a timeout")
    func swapFileStopsTheReplay() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let work = root + "/work dir"
        // Another Neovim edits short.txt and has changed it: its swap file is there.
        let other = try Editor(root: root, swap: true)
        try other.command("edit \(work)/short.txt")
        try other.command("normal! dd")
        // The Neovim replayed into has a terminal (tmux), as a restored one does.
        let tmuxRoot = root + "/tmux"
        try FileManager.default.createDirectory(atPath: tmuxRoot, withIntermediateDirectories: true)
        var environment = Editor.environment(root: root)
        environment["TMUX_TMPDIR"] = tmuxRoot
        let tmux = try #require(TmuxRunner(socket: FilePath(tmuxRoot + "/server"), environment: environment))
        defer { _ = try? tmux.run(["kill-server"]) }
        _ = try tmux.run(["new-session", "-d", "-x", "100", "-y", "30", "nvim --clean"])
        let panePID = try #require(Int32(try tmux.run(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)))
        var socket: FilePath?
        let deadline = ContinuousClock.now + .seconds(20)
        while socket == nil, ContinuousClock.now < deadline {
            socket = NeovimServer.sockets(ofProcess: panePID).first
            if socket == nil { usleep(20_000) }
        }
        let client = try NeovimClient(socket: try #require(socket), timeout: .seconds(20))
        let session = NeovimSession(
            directory: work, buffers: [],
            tabs: [.init(layout: .row([
                .window(.init(file: work + "/long.txt", line: 5, column: 0, width: 50, height: 20)),
                .window(.init(file: work + "/short.txt", line: 2, column: 0, width: 49, height: 20)),
            ]), currentWindow: 0)],
            currentTab: 0)
        let started = ContinuousClock.now
        #expect {
            _ = try session.replay(into: client)
        } throws: { error in
            (error as? NeovimError)?.description.contains("short.txt") == true
        }
        // Stopped by asking Neovim, not by the client's 20 s timeout.
        #expect(ContinuousClock.now - started < .seconds(15))
        #expect(try client.call("nvim_get_mode")["blocking"] == true)
        // A save meanwhile is told so at once, not after the client's timeout.
        let asked = ContinuousClock.now
        #expect {
            _ = try NeovimSession.read(from: client)
        } throws: { error in
            (error as? NeovimError) == .waitsForUser
        }
        #expect(ContinuousClock.now - asked < .seconds(15))
    }

    @Test("No socket, a peer that sends garbage, and one that never answers: each an error in its time, not a hang")
    func notNeovim() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        #expect(throws: NeovimError.self) { try NeovimClient(socket: FilePath(root + "/no-such-socket")) }
        let cases: [(name: String, reply: [UInt8], expected: (NeovimError) -> Bool)] = [
            ("garbage", [0xC1, 0xC1], { if case .notMessagePack = $0 { true } else { false } }),
            ("silent", [], { $0 == .socket(.timedOut) }),
        ]
        for (name, reply, expected) in cases {
            let listener = try UnixListener(path: root + "/" + name)
            let client = try NeovimClient(socket: FilePath(listener.path), timeout: .milliseconds(300))
            listener.accept()
            if !reply.isEmpty { listener.send(reply) }
            // Each for its own reason: garbage is no timeout.
            #expect { try client.call("nvim_get_mode") } throws: { error in (error as? NeovimError).map(expected) ?? false }
        }
    }
}
