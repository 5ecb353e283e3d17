import Foundation
public import RestoredDBus

/// A python3-dbusmock process on a private bus: the D-Bus ecosystem's
/// standard test double of services like logind and gnome-session.
/// Stopped by pid.
public final class DBusMock {
    /// The mock's bus name.
    public let name: String
    private let process: ChildProcess
    /// A connection for driving the mock.
    public let control: DBusConnection

    /// Starts `python3 -m dbusmock` with `arguments` on `bus` (as both the
    /// session and system bus) and waits until it owns `name`.
    public static func start(name: String, arguments: [String], on bus: PrivateBus, log: String, environment extra: [String: String] = [:]) async throws -> DBusMock {
        let python = "/usr/bin/python3"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestSetupError("\(python) is missing: install the Debian package python3-dbusmock (scripts/setup does)")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        environment.merge(extra) { _, new in new }
        // Every call the mock answers is logged: to a file, as nobody reads
        // its standard output, whose pipe would fill after a few hundred
        // calls and stop the mock in mid-answer.
        let logPath = bus.directory.appendingPathComponent(log).path
        let process = try ChildProcess(python, ["-m", "dbusmock", "--logfile", logPath + ".calls"] + arguments, environment: environment, log: logPath)
        let control = try await bus.connect()
        let deadline = ContinuousClock.now + .seconds(30)
        while await control.owner(of: name) == nil {
            guard ContinuousClock.now < deadline else {
                process.stop()
                throw TestSetupError("the mock of \(name) did not start; see \(bus.directory.path)/\(log) (is python3-dbusmock installed?)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        return DBusMock(name: name, process: process, control: control)
    }

    private init(name: String, process: ChildProcess, control: DBusConnection) {
        self.name = name
        self.process = process
        self.control = control
    }

    deinit {
        control.close()
        process.stop()
    }

    /// Stops the mock: the service "goes away".
    public func stop() {
        process.stop()
    }

    /// Emits a signal from the object at `path`.
    public func emit(path: String, interface: String, member: String, signature: String, _ arguments: [DBusValue]) async throws {
        try await mock(path, "EmitSignal", [.string(interface), .string(member), .signature(signature), .array(elementSignature: "v", arguments.map(DBusValue.variant))])
    }

    /// Adds or replaces a method of the object at `path`, implemented by Python `code`.
    public func addMethod(path: String, interface: String, name: String, input: String, output: String, code: String) async throws {
        try await mock(path, "AddMethod", [.string(interface), .string(name), .string(input), .string(output), .string(code)])
    }

    /// Sets a property of the object at `path`.
    public func setProperty(path: String, interface: String, name: String, _ value: DBusValue) async throws {
        try await mock(path, "AddProperty", [.string(interface), .string(name), .variant(value)])
    }

    /// The arguments of every call of `method` on the object at `path`, oldest first.
    public func calls(path: String, method: String) async throws -> [[DBusValue]] {
        let reply = try await control.call(destination: name, path: path, interface: "org.freedesktop.DBus.Mock", member: "GetMethodCalls", arguments: [.string(method)])
        return (reply.first?.arrayValue ?? []).map { call in
            guard case .structure(let fields) = call, fields.count == 2 else { return [] }
            return fields[1].arrayValue?.map(\.unwrapped) ?? []
        }
    }

    private func mock(_ path: String, _ member: String, _ arguments: [DBusValue]) async throws {
        _ = try await control.call(destination: name, path: path, interface: "org.freedesktop.DBus.Mock", member: member, arguments: arguments)
    }
}

extension DBusMock {
    /// The object path of the one client ``gnomeSessionManager(on:)`` registers.
    public static let gnomeSessionClient = "/org/gnome/SessionManager/Client1"

    /// gnome-session's legacy client API on `bus`: `RegisterClient` makes the
    /// client object ``gnomeSessionClient``, whose `EndSessionResponse` is recorded.
    public static func gnomeSessionManager(on bus: PrivateBus) async throws -> DBusMock {
        let manager = try await start(
            name: "org.gnome.SessionManager", arguments: ["--session", "org.gnome.SessionManager", "/org/gnome/SessionManager", "org.gnome.SessionManager"],
            on: bus, log: "session-manager-mock.log"
        )
        try await manager.addMethod(path: "/org/gnome/SessionManager", interface: "org.gnome.SessionManager", name: "RegisterClient", input: "ss", output: "o", code: """
            if '\(gnomeSessionClient)' not in objects:
                self.AddObject('\(gnomeSessionClient)', 'org.gnome.SessionManager.ClientPrivate', {}, [('EndSessionResponse', 'bs', '', '')])
            ret = dbus.ObjectPath('\(gnomeSessionClient)')
            """)
        return manager
    }
}
