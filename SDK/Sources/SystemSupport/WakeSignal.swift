import Glibc
import Synchronization

/// A stop that wakes a thread blocked in `poll(2)`: a pipe whose reading
/// end becomes readable once ``signal()`` is called, and stays so.
///
/// A watch that waits on a peer for as long as it lives (the X session
/// manager, a window manager's IPC, the desktop's display) polls this
/// descriptor beside the peer's, with no timeout: it sleeps until the peer
/// speaks or the watch is stopped, never waking to look at a flag.
public final class WakeSignal: Sendable {
    /// The descriptor to poll for `POLLIN`; -1 when the system refused a
    /// pipe (then a waiter looks at ``isSignalled`` every second instead).
    public let descriptor: Int32
    private let writer: Int32
    private let signalled = Atomic<Bool>(false)

    /// A signal not yet given.
    public init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        descriptor = ends[0]
        writer = ends[1]
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if writer >= 0 { close(writer) }
    }

    /// Whether ``signal()`` was called.
    public var isSignalled: Bool { signalled.load(ordering: .acquiring) }

    /// Wakes every poll of ``descriptor``, now and later.
    public func signal() {
        guard !signalled.exchange(true, ordering: .acquiringAndReleasing), writer >= 0 else { return }
        var one: UInt8 = 1
        _ = withUnsafeBytes(of: &one) { write(writer, $0.baseAddress, 1) }
    }
}
