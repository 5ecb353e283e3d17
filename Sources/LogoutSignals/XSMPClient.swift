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

    /// What the session manager says, in order.
    public enum Event: Sendable {
        /// A `SaveYourself` of a logout (shutdown set): save now, then call
        /// the answer's ``SaveYourselfAnswer/done()``; the session manager
        /// waits for it (`SaveYourselfDone`) before it ends the session.
        case saveYourself(SaveYourselfAnswer)
        /// `ShutdownCancelled`: the user called the logout off.
        case shutdownCancelled
        /// The session manager said `Die` or went away (the reason); the
        /// last event.
        case ended(String)
    }

    /// The answer to one `SaveYourself`, sent by the following queue once
    /// ``done()`` is called (or the answer is dropped unanswered), also
    /// when the watch stops just after: nothing waits on a semaphore or a
    /// thread for it, and the following queue goes on reading the session
    /// manager meanwhile (its events are handed over in order).
    public final class SaveYourselfAnswer: Sendable {
        fileprivate let given = WakeSignal()

        fileprivate init() {}

        /// The save is done: the session manager gets `SaveYourselfDone`.
        public func done() { given.signal() }

        deinit { given.signal() }
    }

    /// Follows the session manager on a queue of its own until the
    /// connection ends, ``stop()``, or the stream's consumer stops
    /// listening: its events, in order. A `SaveYourself` that is not of a
    /// logout (a checkpoint, or the one right after registering) is
    /// answered at once and not handed over. A second call returns a
    /// stream that ends at once.
    public func events() -> AsyncStream<Event> {
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        guard !following.exchange(true, ordering: .relaxed) else {
            continuation.finish()
            return events
        }
        continuation.onTermination = { [stopped] _ in stopped.signal() }
        queue.async { [self] in
            let pointer = client.pointer
            // The logout's SaveYourself being saved for, not answered yet.
            var pending: WakeSignal?
            defer {
                // A save done as the watch stops is still answered.
                if let answer = pending, answer.isSignalled { c_restored_sm_save_yourself_done(pointer, true) }
                c_restored_sm_close(pointer)
                continuation.finish()
            }
            let descriptor = c_restored_sm_descriptor(pointer)
            while !stopped.isSignalled {
                if let answer = pending, answer.isSignalled {
                    c_restored_sm_save_yourself_done(pointer, true)
                    pending = nil
                }
                // Asleep until the session manager speaks, the save is done
                // or ``stop()`` wakes it.
                var entries = [
                    pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: stopped.descriptor, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: pending?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
                ]
                // (Where the system refused a pipe, a stop or an answer is looked at every second.)
                let lookEverySecond = stopped.descriptor < 0 || (pending != nil && pending?.descriptor ?? -1 < 0)
                guard poll(&entries, 3, lookEverySecond ? 1000 : -1) > 0, entries[1].revents == 0 else { continue }
                guard entries[0].revents != 0 else { continue }
                var shutdown = false
                let events = Int(c_restored_sm_process(pointer, &shutdown))
                // One SaveYourself at a time: the session manager sends the
                // next only once the last is answered (XSMP), so one that
                // comes while a save is under way is left to that answer.
                if events & Int(C_RESTORED_SM_SAVE_YOURSELF) != 0, pending == nil {
                    if shutdown {
                        let answer = SaveYourselfAnswer()
                        pending = answer.given
                        continuation.yield(.saveYourself(answer))
                    } else {
                        c_restored_sm_save_yourself_done(pointer, true)
                    }
                }
                if events & Int(C_RESTORED_SM_SHUTDOWN_CANCELLED) != 0 { continuation.yield(.shutdownCancelled) }
                if events & Int(C_RESTORED_SM_DIE) != 0 {
                    continuation.yield(.ended("the session manager said Die"))
                    return
                }
                if events & Int(C_RESTORED_SM_CLOSED) != 0 {
                    continuation.yield(.ended("the session manager closed the connection"))
                    return
                }
            }
        }
        return events
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
