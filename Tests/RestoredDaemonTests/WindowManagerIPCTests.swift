import LogoutSignals
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
