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

    private let mock: DBusMock

    /// Starts the mock on `bus` and waits until it owns its name.
    public static func start(on bus: PrivateBus) async throws -> LogindMock {
        LogindMock(mock: try await DBusMock.start(name: name, arguments: ["--system", "--template", "logind"], on: bus, log: "logind-mock.log"))
    }

    private init(mock: DBusMock) {
        self.mock = mock
    }

    /// Stops the mock: logind "goes away".
    public func stop() {
        mock.stop()
    }

    /// The inhibitors logind holds: (what, who, why, mode) of each.
    public func inhibitors() async throws -> [[String]] {
        let reply = try await mock.control.call(destination: Self.name, path: Self.path, interface: Self.interface, member: "ListInhibitors")
        return (reply.first?.arrayValue ?? []).map { entry in
            guard case .structure(let fields) = entry else { return [] }
            return fields.prefix(4).compactMap(\.stringValue)
        }
    }

    /// Emits a logind signal, as logind does before sleep or shutdown.
    public func emit(_ member: String, signature: String, _ arguments: [DBusValue]) async throws {
        try await mock.emit(path: Self.path, interface: Self.interface, member: member, signature: signature, arguments)
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
        try await mock.addMethod(path: Self.path, interface: Self.interface, name: "Inhibit", input: "ssss", output: "h", code: code)
    }

    /// How many times a method of the manager was called.
    public func calls(of method: String) async throws -> Int {
        try await mock.calls(path: Self.path, method: method).count
    }

    /// Sets a property of the manager, like `InhibitDelayMaxUSec`.
    public func setProperty(_ name: String, _ value: DBusValue) async throws {
        try await mock.setProperty(path: Self.path, interface: Self.interface, name: name, value)
    }

    /// Makes logind know the user `uid` in `state` (`active`, `closing` ...),
    /// and answer `GetUser` for it (the template's own `GetUser` cannot).
    public func setUser(_ uid: UInt32, state: String) async throws {
        let path = "/org/freedesktop/login1/user/\(uid)"
        _ = try? await mock.control.call(
            destination: Self.name, path: Self.path, interface: "org.freedesktop.DBus.Mock", member: "AddUser",
            arguments: [.uint32(uid), .string("user\(uid)"), .boolean(true)]
        )
        try await mock.addMethod(path: Self.path, interface: Self.interface, name: "GetUser", input: "u", output: "o", code: "ret = dbus.ObjectPath('\(path)')")
        _ = try await mock.control.call(
            destination: Self.name, path: path, interface: "org.freedesktop.DBus.Properties", member: "Set",
            arguments: [.string("org.freedesktop.login1.User"), .string("State"), .variant(.string(state))]
        )
    }
}
