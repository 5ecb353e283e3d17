public import Logging
public import RestoredDBus

/// restored's `delay` inhibitor lock for `sleep:shutdown`, and logind's events.
///
/// While the lock is held, logind waits (up to `InhibitDelayMaxUSec`) before
/// suspending or powering off, which is the time restored has to save every
/// app after `PrepareForSleep(true)` / `PrepareForShutdown(true)`. The lock is
/// one file descriptor, closed exactly once by ``release()``.
public actor LogindInhibitor {
    /// logind's bus name.
    public static let busName = "org.freedesktop.login1"
    /// logind's manager object.
    public static let path = "/org/freedesktop/login1"
    /// logind's manager interface.
    public static let interface = "org.freedesktop.login1.Manager"
    /// The error logind gives while the operation the lock would delay is running.
    public static let operationInProgress = "org.freedesktop.login1.OperationInProgress"
    /// The delay budget assumed when logind does not say (its own default).
    public static let defaultDelayBudget = Duration.seconds(5)

    private let connection: DBusConnection
    private let who: String
    private let why: String
    private let logger: Logger
    private var lock: DBusFileDescriptor?
    private var heldObserver: (@Sendable (Bool) -> Void)?

    /// Creates the inhibitor on a system-bus connection.
    public init(
        connection: DBusConnection, who: String = "restored",
        why: String = "Saving the state of your open apps so they come back as you left them", logger: Logger
    ) {
        self.connection = connection
        self.who = who
        self.why = why
        self.logger = logger
    }

    /// Whether the lock is held.
    public var isHeld: Bool { lock?.isOpen == true }

    /// Calls `observer` each time the lock is taken (true) or released (false).
    public func observeHeld(_ observer: @escaping @Sendable (Bool) -> Void) {
        heldObserver = observer
    }

    /// Takes the lock unless it is held.
    public func acquire() async throws(DBusError) {
        guard !isHeld else { return }
        let reply = try await connection.call(
            destination: Self.busName, path: Self.path, interface: Self.interface, member: "Inhibit",
            arguments: [.string("sleep:shutdown"), .string(who), .string(why), .string("delay")]
        )
        guard case .unixFD(let descriptor)? = reply.first else {
            throw DBusError.failed("logind's Inhibit returned no file descriptor")
        }
        lock = descriptor
        logger.debug("holding logind's delay lock for sleep and shutdown")
        heldObserver?(true)
    }

    /// Takes the lock, retrying with doubling delays while logind answers that
    /// the operation is still running (right after resume), `attempts` times.
    public func acquireRetrying(attempts: Int = 8, firstDelay: Duration = .milliseconds(100)) async throws(DBusError) {
        var delay = firstDelay
        for attempt in 1...max(attempts, 1) {
            do {
                try await acquire()
                return
            } catch where error.name == Self.operationInProgress && attempt < attempts {
                logger.debug("logind is still busy (\(error.message)); taking the lock again in \(delay)")
                try? await Task.sleep(for: delay)
                delay *= 2
            }
        }
    }

    /// Releases the lock: closes its descriptor, once. Returns whether it was held.
    @discardableResult
    public func release() -> Bool {
        defer { lock = nil }
        let released = lock?.close() ?? false
        if released { heldObserver?(false) }
        return released
    }

    /// How long logind waits for delay locks: `InhibitDelayMaxUSec`, read now,
    /// or ``defaultDelayBudget`` when logind does not say.
    public func delayBudget() async -> Duration {
        let reply = try? await connection.call(
            destination: Self.busName, path: Self.path, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string(Self.interface), .string("InhibitDelayMaxUSec")],
            // Reading the budget must not use it up.
            timeout: .milliseconds(500)
        )
        guard let microseconds = reply?.first?.uint64Value, microseconds > 0 else { return Self.defaultDelayBudget }
        return .microseconds(Int64(clamping: microseconds))
    }

    /// logind's power events and restarts, from now on.
    public nonisolated func events() async throws(DBusError) -> AsyncStream<LogindEvent> {
        let manager = try await connection.signals(matching: DBusMatchRule(sender: Self.busName, path: Self.path, interface: Self.interface))
        let owners = try await connection.signals(matching: DBusMatchRule(
            sender: DBusConnection.busName, interface: DBusConnection.busName, member: "NameOwnerChanged", firstArgument: Self.busName
        ))
        let (stream, continuation) = AsyncStream<LogindEvent>.makeStream()
        let managerTask = Task {
            for await signal in manager {
                guard let flag = (try? signal.arguments())?.first?.boolValue else { continue }
                switch signal.member {
                case "PrepareForSleep": continuation.yield(.prepareForSleep(flag))
                case "PrepareForShutdown", "PrepareForShutdownWithMetadata": continuation.yield(.prepareForShutdown(flag))
                default: break
                }
            }
            continuation.finish()
        }
        let ownerTask = Task {
            for await signal in owners {
                guard let arguments = try? signal.arguments(), arguments.count == 3 else { continue }
                let newOwner = arguments[2].stringValue ?? ""
                continuation.yield(newOwner.isEmpty ? .vanished : .restarted)
            }
        }
        continuation.onTermination = { _ in
            managerTask.cancel()
            ownerTask.cancel()
        }
        return stream
    }
}
