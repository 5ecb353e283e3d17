import Glibc
import RestoredDBus

/// logind's word on the login: the user's state after each session comes
/// or goes (`lingering` once none is left while the user manager lives on,
/// `closing` at the login's end).
///
/// logind signals `SessionNew` and `SessionRemoved` on its manager (and
/// `PropertiesChanged` on the user's object, where it sends it); the
/// user's `State` is read after each, on the system bus, and handed on when
/// it changed.
struct LogindUserWatch {
    static let busName = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"

    /// Follows the user's sessions on `system`, handing each new state to
    /// `send`; false without logind.
    static func start(on system: DBusConnection, send: @escaping @Sendable (DesktopSession.Signal) -> Void) async -> Bool {
        guard await system.owner(of: busName) != nil,
              let path = await userPath(on: system, within: .seconds(1)),
              let sessions = try? await system.signals(matching: DBusMatchRule(sender: busName, path: managerPath, interface: "org.freedesktop.login1.Manager")),
              let user = try? await system.signals(matching: DBusMatchRule(sender: busName, path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        else { return false }
        let state: @Sendable () async -> String? = {
            try? await system.call(
                destination: busName, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string("org.freedesktop.login1.User"), .string("State")], timeout: .seconds(1)
            ).first?.stringValue
        }
        Task {
            await withTaskGroup(of: Void.self) { group in
                let (changes, change) = AsyncStream<String>.makeStream()
                group.addTask {
                    for await signal in sessions {
                        guard let member = signal.member, ["SessionNew", "SessionRemoved", "UserNew", "UserRemoved"].contains(member) else { continue }
                        change.yield(member)
                    }
                    change.finish()
                }
                group.addTask {
                    for await _ in user {
                        change.yield("PropertiesChanged")
                    }
                }
                group.addTask {
                    var last = await state()
                    for await _ in changes {
                        guard let now = await state(), now != last else { continue }
                        last = now
                        send(.userState(now))
                    }
                }
            }
        }
        return true
    }

    /// The object of restored's user, from `ListUsers` (python-dbusmock's
    /// `GetUser` fails; the list is answered the same by logind and by it);
    /// nil when logind does not list the user.
    static func userPath(on system: DBusConnection, within limit: Duration) async -> String? {
        guard let users = try? await system.call(
            destination: busName, path: managerPath, interface: "org.freedesktop.login1.Manager", member: "ListUsers", timeout: limit
        ).first?.arrayValue else { return nil }
        let uid = UInt64(getuid())
        for user in users {
            guard let fields = user.structureValue, fields.count == 3, fields[0].uint64Value == uid else { continue }
            return fields[2].stringValue
        }
        return nil
    }
}
