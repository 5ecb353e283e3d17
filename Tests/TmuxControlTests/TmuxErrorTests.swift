import Foundation
import Glibc
import RestoredTestSupport
import SystemPackage
import TmuxControl
import Testing

/// A tmux failure is told by its case: a missing server is `.noServer`, read
/// from tmux's words in one place, so no caller matches message text.
@Suite struct TmuxErrorTests {
    @Test("No server on a socket path, and a stale socket whose server is gone, are both .noServer; a failing command is .commandFailed with tmux's message")
    func cases() throws {
        let directory = try TemporaryTestDirectory()
        let environment = ProcessInfo.processInfo.environment
        let absent = FilePath(directory.path + "/absent")
        let runner = try #require(TmuxRunner(socket: absent, environment: environment))
        #expect(throws: TmuxError.noServer(socket: absent)) { try runner.run(["list-sessions"]) }

        // A socket file nobody listens on any more.
        let stale = FilePath(directory.path + "/stale")
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in stale.string.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        close(descriptor)
        #expect(bound == 0)
        let staleRunner = try #require(TmuxRunner(socket: stale, environment: environment))
        #expect(throws: TmuxError.noServer(socket: stale)) { try staleRunner.run(["list-sessions"]) }

        // A live server refusing a command: its own message, not "no server".
        let live = FilePath(directory.path + "/live")
        let server = try #require(TmuxRunner(socket: live, environment: environment))
        _ = try server.run(["-f", "/dev/null", "new-session", "-d", "-s", "main"])
        defer { _ = try? server.run(["kill-server"]) }
        let error = #expect(throws: TmuxError.self) { try server.run(["select-window", "-t", "=nowhere:9"]) }
        guard case .commandFailed(let socket, let command, let message)? = error else {
            Issue.record("expected commandFailed, got \(String(describing: error))")
            return
        }
        #expect(socket == live && command == "select-window" && !message.isEmpty)
    }

    @Test("A server that did not come up says how long it was waited for, and whether the walk's time ended the wait before the server's own limit")
    func serverDidNotStart() {
        #expect(
            TmuxError.serverDidNotStart(name: "default", within: .seconds(10), walkTimeEnded: false).description
                == "the tmux server default did not come up within 10.0 s"
        )
        #expect(
            TmuxError.serverDidNotStart(name: "work", within: .milliseconds(3240), walkTimeEnded: true).description
                == "the tmux server work did not come up within 3.2 s, when the walk's time ran out"
        )
    }

    @Test("A socket held by a server that answers no command says whose it is, how long it was waited for, and what to do")
    func socketHeld() {
        let socket = FilePath("/tmp/tmux-1000/default")
        #expect(
            TmuxError.socketHeld(name: "default", socket: socket, within: .seconds(10), walkTimeEnded: false).description
                == "the socket /tmp/tmux-1000/default of the tmux server default still takes connections but answers no command after 10.0 s "
                + "(a server ending, or hung): end it (tmux -S /tmp/tmux-1000/default kill-server), then restore again"
        )
    }
}
