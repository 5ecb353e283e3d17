import Glibc
import RestoredDBus

/// What logind says of the user: whether their session is ending.
///
/// At logout and shutdown logind marks the user `closing` before it kills
/// what is left of the session; programs then die in no fixed order around
/// restored's last save, which must not take what is left for all there was.
public enum LogindUser {
    /// The user's logind state (`active`, `online`, `lingering`,
    /// `closing` ...), or nil when logind cannot be asked.
    public static func state() -> String? {
        let uid = getuid()
        return Blocking.run { () async -> String? in
            guard let system = try? await DBusConnection.connect(to: .system) else { return nil }
            defer { system.close() }
            guard let path = try? await system.call(
                destination: "org.freedesktop.login1", path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                member: "GetUser", arguments: [.uint32(uid)], timeout: .seconds(2)
            ).first?.stringValue else { return nil }
            let reply = try? await system.call(
                destination: "org.freedesktop.login1", path: path, interface: "org.freedesktop.DBus.Properties",
                member: "Get", arguments: [.string("org.freedesktop.login1.User"), .string("State")], timeout: .seconds(2)
            )
            return reply?.first?.stringValue
        }
    }
}
