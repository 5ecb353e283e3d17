import Dispatch
import Glibc
import RestoredArchive
import RestoredEngine
import RestoredHostProtocol
import Testing

/// The frames of the host protocol over a real socketpair.
@Suite struct HostProtocolTests {
    /// Both ends of a stream socketpair, closed by the caller.
    static func channels() throws -> (FrameChannel, FrameChannel) {
        var descriptors: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0 else {
            throw HostProtocolError.io(operation: "socketpair", errno: errno)
        }
        return (FrameChannel(descriptor: descriptors[0]), FrameChannel(descriptor: descriptors[1]))
    }

    @Test("A save's archive travels after the message's entries, byte for byte, and a restore's archive the same way")
    func archivesTravelAsBlobs() throws {
        let (helper, restored) = try Self.channels()
        defer { close(helper.descriptor); close(restored.descriptor) }
        let appID = try AppID("org.example.Blob")
        let archive = ArchiveCodec.encode(Archive(appID: appID, appVersion: "1", systemVersion: "test", timestamp: 7, plugin: "p", generation: 0,
            ignoresSnapshot: false, restoreAttempts: 0, appState: Array(repeating: 0xAB, count: 300_000), objects: [], snapshot: nil))
        var report = PreservationReport(appID: appID, outcome: .saved(generation: 0))
        report.savedObjectCount = 3
        let sent = HostReply.saved(HostSaveResult(token: 42, archive: archive, report: report)).frame
        // The archive is the blob, not a copy inside the entries.
        #expect(sent.blob == archive)
        #expect(sent.body.count < 1_000)
        // Sent from another thread: a frame larger than the socket's buffer
        // is read while it is written.
        let sending = DispatchGroup()
        DispatchQueue.global().async(group: sending) {
            try? helper.send(sent.kind, sent.body, blob: sent.blob, deadline: .now + .seconds(60))
        }
        defer { sending.wait() }
        let received = try HostReply(try restored.receive(maximumLength: HostProtocol.maximumReplyLength, deadline: .now + .seconds(60)), appID: appID)
        guard case .saved(let result) = received else {
            Issue.record("expected saved, got \(received)")
            return
        }
        #expect(result.token == 42)
        #expect(result.archive == archive)
        #expect(result.report.savedObjectCount == 3)

        let declined = HostReply.saved(HostSaveResult(token: 1, archive: nil, report: PreservationReport(appID: appID, outcome: .declined))).frame
        try helper.send(declined.kind, declined.body, blob: declined.blob)
        guard case .saved(let none) = try HostReply(try restored.receive(maximumLength: 1 << 20), appID: appID) else {
            Issue.record("expected saved")
            return
        }
        #expect(none.archive == nil)
        #expect(none.report.outcome == .declined)

        let request = HostRequest.restore(archive: archive, reason: .recovery, options: ["k": "v"], timeLeft: .milliseconds(4_250)).frame
        DispatchQueue.global().async(group: sending) {
            try? restored.send(request.kind, request.body, blob: request.blob, deadline: .now + .seconds(60))
        }
        guard case .restore(let restoredArchive, let reason, let options, let timeLeft) = try HostRequest(try helper.receive(maximumLength: HostProtocol.maximumRequestLength, deadline: .now + .seconds(60))) else {
            Issue.record("expected restore")
            return
        }
        #expect(restoredArchive == archive)
        #expect(reason == .recovery)
        #expect(options == ["k": "v"])
        // The walk's deadline travels as the time left, in milliseconds.
        #expect(timeLeft == .milliseconds(4_250))
    }

    @Test("A message without the length of its entries, or whose entries go past its end, is refused, never read past")
    func malformedMessagesAreRefused() throws {
        let appID = try AppID("org.example.Blob")
        for body: [UInt8] in [[], [1, 0], [9, 0, 0, 0, 1, 2], [0xFF, 0xFF, 0xFF, 0xFF]] {
            #expect(throws: HostProtocolError.self) { try MessageFields(decoding: body) }
            #expect(throws: HostProtocolError.self) {
                try HostReply(FrameChannel.Frame(kind: HostFrameKind.saved.rawValue, body: body), appID: appID)
            }
        }
        // An empty list of entries and a blob: readable, the blob is what follows.
        let fields = try MessageFields(decoding: HostReply.unchanged.frame.body + [5, 6, 7])
        #expect(Array(fields.blob) == [5, 6, 7])
    }
}
