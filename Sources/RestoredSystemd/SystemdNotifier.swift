// The daemon's half of systemd's service notification protocol (sd_notify(3)).

public import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Tells the systemd service manager about the daemon's state: ready, status
/// lines, watchdog keep-alives, reloading and stopping (sd_notify(3)).
///
/// The notifier reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from
/// the environment dictionary it is created with, not from the process
/// environment. That is why it speaks the notification protocol itself (one
/// `SOCK_DGRAM` datagram of newline-separated `NAME=value` lines to the
/// `AF_UNIX` socket named by `NOTIFY_SOCKET`, a filesystem path or, with a
/// leading `@`, an abstract name) instead of calling libsystemd's
/// `sd_notify`, which can only read the process environment: the wire format
/// is the same, and a test can point a notifier at a socket of its own. The
/// kernel attaches the sender's credentials, which is all systemd checks
/// under `NotifyAccess=main`.
///
/// Without `NOTIFY_SOCKET` (the daemon was not started by systemd as a
/// `Type=notify` service) every method returns without doing anything, as
/// `sd_notify` does.
public struct SystemdNotifier: Sendable {
    /// The notification socket as `NOTIFY_SOCKET` names it, or nil when unset or empty.
    public let socketAddress: String?

    /// How often the daemon must call ``watchdog()``: half of `WATCHDOG_USEC`.
    ///
    /// Nil when the watchdog is off: `WATCHDOG_USEC` unset, zero or not a
    /// number, or `WATCHDOG_PID` set to something other than this process's
    /// pid (the rule of sd_watchdog_enabled(3)).
    public let watchdogInterval: Duration?

    /// Creates a notifier from an environment, by default the process's.
    ///
    /// - Parameter environment: where to read `NOTIFY_SOCKET`,
    ///   `WATCHDOG_USEC` and `WATCHDOG_PID`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let address = environment["NOTIFY_SOCKET"], !address.isEmpty {
            socketAddress = address
        } else {
            socketAddress = nil
        }
        watchdogInterval = Self.watchdogInterval(
            microseconds: environment["WATCHDOG_USEC"],
            pid: environment["WATCHDOG_PID"],
            processID: getpid()
        )
    }

    /// Whether a service manager is listening (`NOTIFY_SOCKET` is set).
    public var isEnabled: Bool { socketAddress != nil }

    /// Tells systemd that start-up is finished (`READY=1`), with a status line.
    ///
    /// - Parameter status: what the daemon is doing now, for `systemctl status`.
    /// - Throws: ``SystemdNotifierError`` when the message cannot be sent.
    public func ready(status: String? = nil) throws(SystemdNotifierError) {
        try send([("READY", "1")] + Self.statusField(status))
    }

    /// Sets the status line `systemctl --user status restored` shows (`STATUS=`).
    ///
    /// - Parameter text: one line for a human; newlines are replaced by spaces.
    /// - Throws: ``SystemdNotifierError`` when the message cannot be sent.
    public func status(_ text: String) throws(SystemdNotifierError) {
        try send([("STATUS", text)])
    }

    /// Keeps the watchdog from firing (`WATCHDOG=1`); call at ``watchdogInterval``.
    ///
    /// - Throws: ``SystemdNotifierError`` when the message cannot be sent.
    public func watchdog() throws(SystemdNotifierError) {
        try send([("WATCHDOG", "1")])
    }

    /// Tells systemd that the daemon is reloading its configuration (`RELOADING=1`).
    ///
    /// Sends `MONOTONIC_USEC=` with it, as `Type=notify-reload` requires.
    /// Call ``ready(status:)`` when the reload is done.
    ///
    /// - Parameter status: what is being reloaded.
    /// - Throws: ``SystemdNotifierError`` when the message cannot be sent.
    public func reloading(status: String? = nil) throws(SystemdNotifierError) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
        try send([("RELOADING", "1"), ("MONOTONIC_USEC", String(microseconds))] + Self.statusField(status))
    }

    /// Tells systemd that the daemon is shutting down (`STOPPING=1`), with a status line.
    ///
    /// - Parameter status: what the daemon does before it exits, such as saving.
    /// - Throws: ``SystemdNotifierError`` when the message cannot be sent.
    public func stopping(status: String? = nil) throws(SystemdNotifierError) {
        try send([("STOPPING", "1")] + Self.statusField(status))
    }

    /// Sends fields in one message, in the given order, as `NAME=value` lines.
    ///
    /// Newlines in values are replaced by spaces: the protocol is line-based.
    /// Does nothing when ``isEnabled`` is false.
    ///
    /// - Parameter fields: names (upper-case letters, digits and `_`, as
    ///   systemd defines them) and their values.
    /// - Throws: ``SystemdNotifierError`` for an invalid name, an unusable
    ///   `NOTIFY_SOCKET`, or a failed send.
    public func send(_ fields: [(name: String, value: String)]) throws(SystemdNotifierError) {
        guard let socketAddress else { return }
        guard !fields.isEmpty else { return }
        var lines: [String] = []
        lines.reserveCapacity(fields.count)
        for (name, value) in fields {
            guard Self.isValidFieldName(name) else { throw .invalidFieldName(name) }
            lines.append("\(name)=\(Self.singleLine(value))")
        }
        let address = try NotifySocketAddress(socketAddress)
        try address.send(Array(lines.joined(separator: "\n").utf8))
    }

    /// Sends ``watchdog()`` every ``watchdogInterval`` until the task is cancelled.
    ///
    /// Returns at once when the watchdog is off. The task sleeps between
    /// keep-alives, so the daemon wakes up only for them.
    ///
    /// - Throws: ``SystemdNotifierError`` when a keep-alive cannot be sent.
    public func runWatchdog() async throws(SystemdNotifierError) {
        guard isEnabled, let interval = watchdogInterval else { return }
        while !Task.isCancelled {
            try watchdog()
            do {
                try await Task.sleep(for: interval)
            } catch {
                return  // Cancelled.
            }
        }
    }

    // MARK: - Parsing and formatting

    /// Half of `WATCHDOG_USEC`, following sd_watchdog_enabled(3).
    static func watchdogInterval(microseconds: String?, pid: String?, processID: pid_t) -> Duration? {
        guard let microseconds, let value = UInt64(microseconds), value > 0,
            value != UInt64.max, value <= UInt64(Int64.max)
        else { return nil }
        if let pid {
            guard let owner = pid_t(pid), owner > 0, owner == processID else { return nil }
        }
        return .microseconds(Int64(value)) / 2
    }

    static func statusField(_ status: String?) -> [(name: String, value: String)] {
        guard let status else { return [] }
        return [("STATUS", status)]
    }

    /// Whether `name` can be a notification field name: `[A-Z0-9_]+`.
    static func isValidFieldName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "_")
            }
    }

    /// `text` with every line break replaced by a space.
    static func singleLine(_ text: String) -> String {
        guard text.contains(where: \.isNewline) else { return text }
        return String(text.map { $0.isNewline ? " " : $0 })
    }
}
