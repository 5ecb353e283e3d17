internal import CRestoredSessionClient
import Dispatch
import Glibc
import Synchronization
import SystemSupport

/// A client of the X session manager (XSMP, through libSM): Xfce, MATE,
/// LXQt, and KDE Plasma on X11.
///
/// At logout the session manager sends `SaveYourself` with `shutdown` set
/// to every client and waits for `SaveYourselfDone` before it ends the
/// session: the moment to save, while the apps run. restored registers
/// with `RestartStyleHint` never and no restart command: it is a service
/// of the user manager, not an app for the session to relaunch. A
/// `SaveYourself` without shutdown (a checkpoint, or the one sent right
/// after registering) is answered at once.
public final class XSMPClient: Sendable {
    /// The id the session manager gave this client.
    public let clientID: String
    private let client: ClientBox
    /// Wakes the following queue out of its wait on the session manager.
    private let stopped = WakeSignal()
    private let following = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "restored.xsmp")

    /// The session manager's address (`SESSION_MANAGER`), if one is set.
    public static func address(environment: [String: String]) -> String? {
        guard let address = environment["SESSION_MANAGER"], !address.isEmpty else { return nil }
        return address
    }

    /// Connects and registers with the session manager at `address`.
    public init(address: String, program: String = "restored") throws(XSMPError) {
        var message = [CChar](repeating: 0, count: 512)
        guard let client = c_restored_sm_open(address, program, &message, message.count) else {
            throw XSMPError(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.client = ClientBox(client)
        clientID = String(cString: c_restored_sm_client_id(client))
    }

    /// Follows the session manager on a queue of its own until the
    /// connection ends or ``stop()``: `saveYourself` runs (on that queue,
    /// which waits for it) at each `SaveYourself` of a logout, and its
    /// return answers `SaveYourselfDone`; `cancelled` at `ShutdownCancelled`;
    /// `ended` once, when the session manager says `Die` or goes away.
    public func follow(
        saveYourself: @escaping @Sendable () -> Void, cancelled: @escaping @Sendable () -> Void, ended: @escaping @Sendable (String) -> Void
    ) {
        guard !following.exchange(true, ordering: .relaxed) else { return }
        queue.async { [self] in
            let pointer = client.pointer
            defer { c_restored_sm_close(pointer) }
            let descriptor = c_restored_sm_descriptor(pointer)
            while !stopped.isSignalled {
                // Asleep until the session manager speaks or ``stop()`` wakes it.
                var entries = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0), pollfd(fd: stopped.descriptor, events: Int16(POLLIN), revents: 0)]
                // (A stop without a descriptor, where the system refused a pipe, is looked at every second.)
                guard poll(&entries, 2, stopped.descriptor < 0 ? 1000 : -1) > 0, entries[1].revents == 0 else { continue }
                var shutdown = false
                let events = Int(c_restored_sm_process(pointer, &shutdown))
                if events & Int(C_RESTORED_SM_SAVE_YOURSELF) != 0 {
                    if shutdown { saveYourself() }
                    c_restored_sm_save_yourself_done(pointer, true)
                }
                if events & Int(C_RESTORED_SM_SHUTDOWN_CANCELLED) != 0 { cancelled() }
                if events & Int(C_RESTORED_SM_DIE) != 0 {
                    ended("the session manager said Die")
                    return
                }
                if events & Int(C_RESTORED_SM_CLOSED) != 0 {
                    ended("the session manager closed the connection")
                    return
                }
            }
        }
    }

    /// Stops following at once and closes the connection.
    public func stop() {
        stopped.signal()
    }

    private final class ClientBox: @unchecked Sendable {
        // Unchecked: used on the following queue alone once following starts.
        let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
    }
}

/// Why restored could not register with the X session manager.
public struct XSMPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What libSM said.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
