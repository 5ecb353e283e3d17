import Foundation
import RestoredDBus

/// The real xdg-desktop-portal frontend on a private bus, with an Inhibit
/// backend of the test's own (python3-dbusmock): its session monitor
/// answers, its `QueryEndResponse` is recorded, and ``setState(_:of:)``
/// makes it emit `StateChanged`. Both processes are stopped by pid.
public final class DesktopPortal {
    /// The backend's object.
    public static let object = "/org/freedesktop/portal/desktop"
    /// The backend's interface.
    public static let interface = "org.freedesktop.impl.portal.Inhibit"
    /// The backend.
    public let backend: DBusMock
    private let frontend: ChildProcess

    private init(backend: DBusMock, frontend: ChildProcess) {
        self.backend = backend
        self.frontend = frontend
    }

    deinit { frontend.stop() }

    /// Starts the backend and the frontend on `bus`, and waits until the
    /// frontend owns its name.
    public static func start(on bus: PrivateBus) async throws -> DesktopPortal {
        let root = bus.directory.path
        let backend = try await DBusMock.start(
            name: "org.freedesktop.impl.portal.Test", arguments: ["--session", "org.freedesktop.impl.portal.Test", object, interface],
            on: bus, log: "portal-backend.log"
        )
        try await backend.addMethod(path: object, interface: interface, name: "CreateMonitor", input: "ooss", output: "u", code: "ret = dbus.UInt32(0)")
        try await backend.addMethod(path: object, interface: interface, name: "QueryEndResponse", input: "o", output: "", code: "")
        try await backend.addMethod(path: object, interface: interface, name: "TestSetState", input: "ou", output: "", code: """
            self.EmitSignal('\(interface)', 'StateChanged', 'oa{sv}', [args[0], {'screensaver-active': dbus.Boolean(False, variant_level=1), 'session-state': dbus.UInt32(args[1], variant_level=1)}])
            """)
        let portals = root + "/portals"
        try FileManager.default.createDirectory(atPath: portals, withIntermediateDirectories: true)
        try "[portal]\nDBusName=org.freedesktop.impl.portal.Test\nInterfaces=\(interface);\nUseIn=restoredtest\n"
            .write(toFile: portals + "/restoredtest.portal", atomically: true, encoding: .utf8)
        var variables = ProcessInfo.processInfo.environment
        variables["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        variables["XDG_DESKTOP_PORTAL_DIR"] = portals
        variables["XDG_CURRENT_DESKTOP"] = "restoredtest"
        let portal = DesktopPortal(backend: backend, frontend: try ChildProcess("/usr/libexec/xdg-desktop-portal", ["-r"], environment: variables, log: root + "/portal.log"))
        try await waitUntil("the portal frontend on the bus") { await backend.control.owner(of: "org.freedesktop.portal.Desktop") != nil }
        return portal
    }

    /// The session of the monitor a client opened, once one did.
    public func monitorSession() async throws -> String {
        var session: String?
        try await Self.waitUntil("a session monitor") {
            session = try await backend.calls(path: Self.object, method: "CreateMonitor").first?.dropFirst().first?.stringValue
            return session != nil
        }
        return session ?? ""
    }

    /// How many times a client answered QUERY_END.
    public func queryEndResponses() async throws -> Int {
        try await backend.calls(path: Self.object, method: "QueryEndResponse").count
    }

    /// Makes the backend say the session is in `state` (1 running, 2 query end, 3 ending).
    public func setState(_ state: UInt32, of session: String) async throws {
        _ = try await backend.control.call(
            destination: backend.name, path: Self.object, interface: Self.interface, member: "TestSetState", arguments: [.objectPath(session), .uint32(state)]
        )
    }

    private static func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw TestSetupError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
