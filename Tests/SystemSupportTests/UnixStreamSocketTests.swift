import Foundation
import RestoredTestSupport
import SystemPackage
import SystemSupport
import Testing
import UnixSocket

/// The buffered reads with deadlines that the X11, Neovim and i3 clients share.
@Suite struct UnixStreamSocketTests {
    func withPeer(_ body: (UnixListener, inout UnixStreamSocket) throws -> Void) throws {
        let directory = try TemporaryTestDirectory()
        let listener = try UnixListener(path: directory.path + "/socket")
        var socket = try UnixStreamSocket(connectingTo: FilePath(listener.path), bufferLimit: 1000)
        listener.accept()
        try body(listener, &socket)
    }

    @Test("Exact reads span the pieces the peer sent, and keep what came past them for the next read")
    func exactReads() throws {
        try withPeer { peer, socket in
            peer.send([1, 2, 3])
            peer.send([4, 5, 6, 7])
            let first = try socket.read(exactly: 5, before: .now + .seconds(10))
            #expect(first == [1, 2, 3, 4, 5])
            #expect(Array(socket.buffered) == [6, 7] || socket.buffered.isEmpty)
            let second = try socket.read(exactly: 2, before: .now + .seconds(10))
            #expect(second == [6, 7])
            #expect(socket.buffered.isEmpty)
        }
    }

    @Test("A peer that closes inside a frame is .closed; one that never sends is .timedOut at the deadline")
    func closedAndSilent() throws {
        try withPeer { peer, socket in
            #expect(throws: UnixSocketError.timedOut) { try socket.read(exactly: 1, before: .now + .milliseconds(100)) }
            peer.send([9])
            peer.closePeer()
            #expect(throws: UnixSocketError.closed) { try socket.read(exactly: 2, before: .now + .seconds(10)) }
        }
    }

    @Test("A frame longer than the buffer's limit is refused at once, and so is more data than the limit without a frame taken")
    func limit() throws {
        try withPeer { peer, socket in
            #expect(throws: UnixSocketError.tooLarge(limit: 1000)) { try socket.read(exactly: 1001, before: .now + .seconds(10)) }
            peer.send([UInt8](repeating: 0, count: 1500))
            #expect(throws: UnixSocketError.tooLarge(limit: 1000)) {
                while true { try socket.receiveMore(before: .now + .seconds(10)) }
            }
            socket.take(600)
            #expect(socket.buffered.count >= 400)
        }
    }

    @Test("A wait with no deadline (a held display, a window manager's events) ends as soon as its WakeSignal is given, not at a timeout, and a signal given before the wait stops it at once")
    func wokenWait() throws {
        try withPeer { _, socket in
            let wake = WakeSignal()
            let started = ContinuousClock.now
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) { wake.signal() }
            #expect(throws: UnixSocketError.interrupted) { try socket.receiveMore(before: .now + .seconds(3600), interruptedBy: wake) }
            #expect(ContinuousClock.now - started < .seconds(30))
            #expect(wake.isSignalled)
            #expect(throws: UnixSocketError.interrupted) { try socket.receiveMore(before: .now + .seconds(3600), interruptedBy: wake) }
            let closed = socket.waitUntilClosed(interruptedBy: wake)
            #expect(!closed)
        }
    }

    @Test("A held connection drops what the peer sends and returns true when the peer closes it (the display went away)")
    func heldUntilClosed() throws {
        try withPeer { peer, socket in
            peer.send([1, 2, 3])
            // Used by that one closure alone from now on.
            nonisolated(unsafe) let closing = peer
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(200)) { closing.closePeer() }
            let closed = socket.waitUntilClosed(interruptedBy: WakeSignal())
            #expect(closed)
            #expect(socket.buffered.isEmpty)
        }
    }
}
