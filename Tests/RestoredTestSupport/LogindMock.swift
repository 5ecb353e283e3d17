import Foundation
public import RestoredDBus

/// python3-dbusmock's `logind` template on a private bus, played as the
/// system bus: the standard test double of logind. Stopped by pid.
public final class LogindMock {
    /// logind's bus name.
    public static let name = "org.freedesktop.login1"
    /// logind's manager object.
    public static let path = "/org/freedesktop/login1"
    /// logind's manager interface.
    public static let interface = "org.freedesktop.login1.Manager"

    private let process: ChildProcess
    private let control: DBusConnection

    /// Starts the mock on `bus` and waits until it owns its name.
    public static func start(on bus: PrivateBus) async throws -> LogindMock {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw PrivateBusError("\(python) is missing: install the Debian package python3-dbusmock (scripts/setup does)")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let process = try ChildProcess(
            python, ["-m", "dbusmock", "--system", "--template", "logind"],
            environment: environment, log: bus.directory.appendingPathComponent("logind-mock.log").path
        )
        let control = try await bus.connect()
        let deadline = ContinuousClock.now + .seconds(20)
        while await control.owner(of: name) == nil {
            guard ContinuousClock.now < deadline else {
                process.stop()
                throw PrivateBusError("the logind mock did not start; see \(bus.directory.path)/logind-mock.log (is python3-dbusmock installed?)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return LogindMock(process: process, control: control)
    }

    private init(process: ChildProcess, control: DBusConnection) {
        self.process = process
        self.control = control
    }

    deinit {
        control.close()
        process.stop()
    }

    /// Stops the mock: logind "goes away".
    public func stop() {
        process.stop()
    }

    /// The inhibitors logind holds: (what, who, why, mode) of each.
    public func inhibitors() async throws -> [[String]] {
        let reply = try await control.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "ListInhibitors")
        return (reply.first?.arrayValue ?? []).map { entry in
            guard case .structure(let fields) = entry else { return [] }
            return fields.prefix(4).compactMap(\.stringValue)
        }
    }

    /// Emits a logind signal, as logind does before sleep or shutdown.
    public func emit(_ member: String, signature: String, _ arguments: [DBusValue]) async throws {
        _ = try await control.call(
            destination: Self.name, path: Self.path, interface: "org.freedesktop.DBus.Mock", member: "EmitSignal",
            arguments: [.string(Self.interface), .string(member), .signature(signature), .array(elementSignature: "v", arguments.map(DBusValue.variant))]
        )
    }

    /// Makes `Inhibit` refuse `refusals` calls with OperationInProgress, as
    /// logind does right after resume, then grant locks again (these locks
    /// do not show in ListInhibitors).
    public func refuseInhibit(times refusals: Int) async throws {
        let code = """
            self.inhibit_refusals = getattr(self, 'inhibit_refusals', \(refusals))
            if self.inhibit_refusals > 0:
                self.inhibit_refusals -= 1
                raise dbus.exceptions.DBusException('The operation inhibition has been requested for is already running', name='org.freedesktop.login1.OperationInProgress')
            reader, writer = os.pipe()
            self.granted_locks = getattr(self, 'granted_locks', []) + [reader]
            ret = dbus.types.UnixFd(writer)
            os.close(writer)
            """
        _ = try await control.call(
            destination: Self.name, path: Self.path, interface: "org.freedesktop.DBus.Mock", member: "AddMethod",
            arguments: [.string(Self.interface), .string("Inhibit"), .string("ssss"), .string("h"), .string(code)]
        )
    }

    /// How many times a method of the manager was called.
    public func calls(of method: String) async throws -> Int {
        let reply = try await control.call(
            destination: Self.name, path: Self.path, interface: "org.freedesktop.DBus.Mock", member: "GetMethodCalls", arguments: [.string(method)]
        )
        return reply.first?.arrayValue?.count ?? 0
    }

    /// Sets a property of the manager, like `InhibitDelayMaxUSec`.
    public func setProperty(_ name: String, _ value: DBusValue) async throws {
        _ = try await control.call(
            destination: Self.name, path: Self.path, interface: "org.freedesktop.DBus.Mock", member: "AddProperty",
            arguments: [.string(Self.interface), .string(name), .variant(value)]
        )
    }
}
