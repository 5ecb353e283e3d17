internal import CDBus
internal import CRestoredSupport
import Synchronization

#if canImport(Glibc)
import Glibc
import SystemSupport
#endif

/// The thread that owns one libdbus connection.
///
/// libdbus is driven through its watch and timeout functions: the thread
/// polls the descriptors libdbus asks for, a pipe for wake-ups, and
/// sleeps until the nearest libdbus timeout. It never reads the socket
/// itself. Every libdbus call on the connection happens on this thread:
/// other threads hand it work with ``perform(_:)``, so no Swift concurrency
/// thread ever blocks on D-Bus.
///
/// Unchecked Sendable: the mutable state below `jobs` is touched only on the
/// loop thread; `jobs` is guarded by its mutex.
final class DBusEventLoop: @unchecked Sendable {
    private final class Timeout {
        let pointer: OpaquePointer
        var deadline: ContinuousClock.Instant

        init(_ pointer: OpaquePointer) {
            self.pointer = pointer
            deadline = .now + .milliseconds(Int(dbus_timeout_get_interval(pointer)))
        }

        func restart() {
            deadline = .now + .milliseconds(Int(dbus_timeout_get_interval(pointer)))
        }
    }

    /// Queued work, and whether the loop has ended (then work runs at once,
    /// finding no connection).
    private let jobs = Mutex<(queue: [@Sendable () -> Void], ended: Bool)>(([], false))
    private let wakeDescriptor: Int32
    private let wakeWriter: Int32
    private(set) var connection: OpaquePointer?
    private var watches: [OpaquePointer] = []
    private var timeouts: [Timeout] = []
    private var stopping = false
    /// Called on the loop thread for every incoming message; true when handled.
    var filter: ((DBusMessage) -> Bool)?
    /// Called once on the loop thread when the connection is lost.
    var disconnected: (() -> Void)?

    init() throws(DBusError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw DBusError.failed("cannot create the D-Bus wake-up pipe: \(String(cString: strerror(errno)))") }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        wakeDescriptor = ends[0]
        wakeWriter = ends[1]
    }

    deinit {
        Glibc.close(wakeDescriptor)
        Glibc.close(wakeWriter)
    }

    /// Starts the thread, which opens the connection with `open` (blocking,
    /// on the loop thread) and then runs until ``stop()``.
    func start(open: @escaping @Sendable () throws(DBusError) -> OpaquePointer) async throws(DBusError) {
        let result: Result<Void, DBusError> = await withCheckedContinuation { continuation in
            Self.startThread { [self] in
                _ = c_restored_name_current_thread("restored-dbus")
                do throws(DBusError) {
                    let connection = try open()
                    self.install(connection)
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                    return
                }
                self.run()
            }
        }
        try result.get()
    }

    /// Runs `body` on a new detached thread.
    private static func startThread(_ body: @escaping @Sendable () -> Void) {
        final class Body {
            let run: @Sendable () -> Void
            init(_ run: @escaping @Sendable () -> Void) { self.run = run }
        }
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        precondition(created == 0, "cannot start the D-Bus thread (error \(created))")
        pthread_detach(thread)
    }

    /// Runs `job` on the loop thread, soon.
    func perform(_ job: @escaping @Sendable () -> Void) {
        let queued = jobs.withLock { jobs -> Bool in
            guard !jobs.ended else { return false }
            jobs.queue.append(job)
            return true
        }
        if queued { wake() } else { job() }
    }

    /// Ends the loop after the jobs already queued; the connection is closed.
    func stop() {
        perform { [self] in self.stopping = true }
    }

    func wake() {
        // A full pipe already means "wake up": the write may fail harmlessly.
        var one: UInt8 = 1
        _ = withUnsafeBytes(of: &one) { write(wakeWriter, $0.baseAddress, 1) }
    }

    // MARK: The loop

    private func install(_ connection: OpaquePointer) {
        self.connection = connection
        let context = Unmanaged.passUnretained(self).toOpaque()
        dbus_connection_set_exit_on_disconnect(connection, 0)
        dbus_connection_set_watch_functions(connection, { watch, context in
            guard let watch, let context else { return 0 }
            Unmanaged<DBusEventLoop>.fromOpaque(context).takeUnretainedValue().watches.append(watch)
            return 1
        }, { watch, context in
            guard let watch, let context else { return }
            Unmanaged<DBusEventLoop>.fromOpaque(context).takeUnretainedValue().watches.removeAll { $0 == watch }
        }, { _, _ in
            // Enabled state is read on every iteration.
        }, context, nil)
        dbus_connection_set_timeout_functions(connection, { timeout, context in
            guard let timeout, let context else { return 0 }
            Unmanaged<DBusEventLoop>.fromOpaque(context).takeUnretainedValue().timeouts.append(Timeout(timeout))
            return 1
        }, { timeout, context in
            guard let timeout, let context else { return }
            Unmanaged<DBusEventLoop>.fromOpaque(context).takeUnretainedValue().timeouts.removeAll { $0.pointer == timeout }
        }, { timeout, context in
            guard let timeout, let context else { return }
            Unmanaged<DBusEventLoop>.fromOpaque(context).takeUnretainedValue().timeouts.first { $0.pointer == timeout }?.restart()
        }, context, nil)
        dbus_connection_set_wakeup_main_function(connection, { context in
            guard let context else { return }
            Unmanaged<DBusEventLoop>.fromOpaque(context).takeUnretainedValue().wake()
        }, context, nil)
        dbus_connection_add_filter(connection, { _, message, context in
            guard let message, let context else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            let loop = Unmanaged<DBusEventLoop>.fromOpaque(context).takeUnretainedValue()
            let handled = loop.filter?(DBusMessage(retaining: message)) ?? false
            return handled ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }, context, nil)
    }

    private func run() {
        guard let connection else { return }
        var reportedDisconnect = false
        while true {
            let queued = jobs.withLock { jobs -> [@Sendable () -> Void] in
                defer { jobs.queue.removeAll() }
                return jobs.queue
            }
            for job in queued { job() }
            while dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
            if stopping { break }
            if !reportedDisconnect && dbus_connection_get_is_connected(connection) == 0 {
                reportedDisconnect = true
                disconnected?()
            }
            poll(connection)
        }
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
        self.connection = nil
        watches.removeAll()
        timeouts.removeAll()
        // Work queued meanwhile, or later, finds no connection and fails at once.
        let late = jobs.withLock { jobs -> [@Sendable () -> Void] in
            jobs.ended = true
            defer { jobs.queue.removeAll() }
            return jobs.queue
        }
        for job in late { job() }
    }

    private func poll(_ connection: OpaquePointer) {
        let active = watches.filter { dbus_watch_get_enabled($0) != 0 }
        var descriptors = [pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)]
        for watch in active {
            let flags = dbus_watch_get_flags(watch)
            var events: Int16 = 0
            if flags & DBUS_WATCH_READABLE.rawValue != 0 { events |= Int16(POLLIN) }
            if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { events |= Int16(POLLOUT) }
            descriptors.append(pollfd(fd: dbus_watch_get_unix_fd(watch), events: events, revents: 0))
        }
        let now = ContinuousClock.now
        var wait: Int32 = -1
        for timeout in timeouts where dbus_timeout_get_enabled(timeout.pointer) != 0 {
            let left = timeout.deadline - now
            let milliseconds = left.pollMilliseconds
            wait = wait < 0 ? milliseconds : min(wait, milliseconds)
        }
        let ready = Glibc.poll(&descriptors, nfds_t(descriptors.count), wait)
        if ready > 0 {
            if descriptors[0].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while drain.withUnsafeMutableBytes({ read(wakeDescriptor, $0.baseAddress, 64) }) > 0 {}
            }
            for (index, watch) in active.enumerated() {
                let events = descriptors[index + 1].revents
                guard events != 0, watches.contains(watch) else { continue }
                var flags: UInt32 = 0
                if events & Int16(POLLIN) != 0 { flags |= DBUS_WATCH_READABLE.rawValue }
                if events & Int16(POLLOUT) != 0 { flags |= DBUS_WATCH_WRITABLE.rawValue }
                if events & Int16(POLLERR) != 0 { flags |= DBUS_WATCH_ERROR.rawValue }
                if events & Int16(POLLHUP) != 0 { flags |= DBUS_WATCH_HANGUP.rawValue }
                dbus_watch_handle(watch, flags)
            }
        }
        let after = ContinuousClock.now
        for timeout in timeouts where dbus_timeout_get_enabled(timeout.pointer) != 0 && timeout.deadline <= after {
            timeout.restart()
            dbus_timeout_handle(timeout.pointer)
        }
    }
}
