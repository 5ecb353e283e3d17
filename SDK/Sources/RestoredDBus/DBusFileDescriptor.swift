import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A file descriptor received over or sent through D-Bus, closed exactly once.
///
/// libdbus hands every received descriptor over as a duplicate the receiver
/// owns; this type owns one such descriptor. ``close()`` closes it once, and
/// the descriptor is closed when the last reference goes if nobody did.
/// logind's inhibitor lock is held as long as its descriptor is open, so
/// "exactly once" matters.
public final class DBusFileDescriptor: Sendable, Hashable {
    private let state: Mutex<Int32>

    /// Takes ownership of `descriptor`.
    public init(owning descriptor: Int32) {
        state = Mutex(descriptor)
    }

    deinit {
        close()
    }

    /// The descriptor, or -1 once closed.
    public var rawValue: Int32 {
        state.withLock { $0 }
    }

    /// Whether it is still open.
    public var isOpen: Bool { rawValue >= 0 }

    /// Closes the descriptor; later calls do nothing. Returns whether this call closed it.
    @discardableResult
    public func close() -> Bool {
        let descriptor = state.withLock { descriptor -> Int32 in
            let current = descriptor
            descriptor = -1
            return current
        }
        guard descriptor >= 0 else { return false }
        _ = Glibc.close(descriptor)
        return true
    }

    /// Identity.
    public static func == (lhs: DBusFileDescriptor, rhs: DBusFileDescriptor) -> Bool {
        lhs === rhs
    }

    /// Identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
