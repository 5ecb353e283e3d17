import LogoutSignals
import Testing

/// The i3/sway IPC framing, as a byte stream delivers it.
@Suite struct WindowManagerIPCTests {
    @Test("Messages cut anywhere and run together are read whole and in order; a stream that is not i3-ipc is refused")
    func framing() throws {
        let subscribe = WindowManagerIPC.Message(type: WindowManagerIPC.subscribe, payload: Array(#"{"success":true}"#.utf8))
        let shutdown = WindowManagerIPC.Message(type: WindowManagerIPC.shutdownEvent, payload: Array(#"{"change":"exit"}"#.utf8))
        let stream = subscribe.bytes + shutdown.bytes
        #expect(Array(stream.prefix(6)) == Array("i3-ipc".utf8))
        for cut in 0 ... stream.count {
            var reader = WindowManagerIPC.Reader()
            let messages = try reader.read(Array(stream[..<cut])) + reader.read(Array(stream[cut...]))
            #expect(messages == [subscribe, shutdown], "cut at \(cut)")
        }
        var reader = WindowManagerIPC.Reader()
        #expect(throws: WindowManagerIPCError.notTheProtocol) { try reader.read(Array("HTTP/1.1 200 OK\r\n".utf8)) }
        var huge = WindowManagerIPC.Reader()
        let oversized = Array("i3-ipc".utf8) + [0, 0, 0, 0x10] + [0, 0, 0, 0]
        #expect(throws: WindowManagerIPCError.notTheProtocol) { try huge.read(oversized) }
    }
}
