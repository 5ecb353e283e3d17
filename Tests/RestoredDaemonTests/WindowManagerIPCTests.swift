import Foundation
import LogoutSignals
import RestoredTestSupport
import SystemPackage
import WindowManagerIPC
import Testing

/// The i3/sway IPC framing, as a byte stream delivers it.
@Suite struct WindowManagerIPCTests {
    @Test("Messages cut anywhere and run together are read whole and in order; a stream that is not i3-ipc is refused")
    func framing() throws {
        let subscribe = WindowManagerIPC.Message(type: WindowManagerIPC.subscribe, payload: Array(#"{"success":true}"#.utf8))
        let shutdown = WindowManagerIPC.Message(type: WindowManagerIPC.shutdownEvent, payload: Array(#"{"change":"exit"}"#.utf8))
        let stream = subscribe.bytes + shutdown.bytes
        #expect(Array(stream.prefix(6)) == Array("i3-ipc".utf8))
        // Every prefix of the stream: the messages wholly in it, and never one cut short.
        for cut in 0 ... stream.count {
            var buffered = stream[..<cut]
            var messages: [WindowManagerIPC.Message] = []
            while let (message, length) = try WindowManagerIPC.firstMessage(in: buffered) {
                messages.append(message)
                buffered = buffered.dropFirst(length)
            }
            let expected = cut < subscribe.bytes.count ? [] : cut < stream.count ? [subscribe] : [subscribe, shutdown]
            #expect(messages == expected, "cut at \(cut)")
        }
        #expect(throws: WindowManagerIPCError.notTheProtocol) { try WindowManagerIPC.firstMessage(in: Array("HTTP/1.1 200 OK\r\n".utf8)[...]) }
        // Refused at its first byte already.
        #expect(throws: WindowManagerIPCError.notTheProtocol) { try WindowManagerIPC.firstMessage(in: [0x48]) }
        let oversized = Array("i3-ipc".utf8) + [0, 0, 0, 0x10] + [0, 0, 0, 0]
        #expect(throws: WindowManagerIPCError.notTheProtocol) { try WindowManagerIPC.firstMessage(in: oversized[...]) }
    }
}

/// A window manager's IPC peer that misbehaves, and saved names on their way to a command.
@Suite struct WindowManagerConnectionTests {
    @Test("A peer that never answers is .timedOut at the connection's timeout; one that sends garbage is refused; either is an error for that call only")
    func badPeers() throws {
        let directory = try TemporaryTestDirectory()
        let root = directory.path
        let silent = try UnixListener(path: root + "/silent")
        let quiet = try WindowManagerConnection(socket: FilePath(silent.path), timeout: .milliseconds(200))
        #expect(throws: WindowManagerIPCError.timedOut) { try quiet.tree() }
        // Its late reply is never read as the next request's: the connection is broken.
        silent.accept()
        silent.send(WindowManagerIPC.Message(type: WindowManagerIPC.getTree, payload: Array(#"{"id":1,"type":"root","nodes":[]}"#.utf8)).bytes)
        #expect(throws: WindowManagerIPCError.timedOut) { try quiet.tree() }
        let garbage = try UnixListener(path: root + "/garbage")
        let confused = try WindowManagerConnection(socket: FilePath(garbage.path), timeout: .seconds(10))
        garbage.accept()
        garbage.send(Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
        #expect(throws: WindowManagerIPCError.notTheProtocol) { try confused.tree() }
        // A reply that is i3-ipc but no tree.
        let wrong = try UnixListener(path: root + "/wrong")
        let misled = try WindowManagerConnection(socket: FilePath(wrong.path), timeout: .seconds(10))
        wrong.accept()
        wrong.send(WindowManagerIPC.Message(type: WindowManagerIPC.getTree, payload: Array("[1, 2]".utf8)).bytes)
        #expect { try misled.tree() } throws: { error in
            if case .unreadableReply? = error as? WindowManagerIPCError { true } else { false }
        }
    }

    @Test("A saved workspace or output name reaches a command only inside quotes it cannot end: quotes, backslashes and control characters refuse it")
    func quotedNames() {
        #expect(WindowManagerCommand.quoted("3") == "\"3\"")
        #expect(WindowManagerCommand.quoted("2: web; mail") == "\"2: web; mail\"")
        for hostile in ["", "a\"; exec touch /tmp/x", "a\\", "a\nexec touch /tmp/x", "a\u{1b}]2;x\u{7}", "a\u{9b}b", "x\", exec \"y"] {
            #expect(WindowManagerCommand.quoted(hostile) == nil, "\(hostile.debugDescription)")
        }
    }
}
