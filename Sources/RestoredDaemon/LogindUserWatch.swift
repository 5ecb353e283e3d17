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
struct LogindUserWatch: Sendable {
    static let busName = "org.freedesktop.login1"
    static let managerPath = "/org/freedesktop/login1"

    private let system: DBusConnection
    /// The user's object.
    private let path: String
    /// The manager's signals of sessions and users.
    private let sessions: AsyncStream<DBusMessage>
    /// The user's `PropertiesChanged`.
    private let user: AsyncStream<DBusMessage>

    /// Subscribes to logind's signals of the user's sessions on `system`;
    /// nil without logind, or when it does not list the user.
    static func subscribe(on system: DBusConnection) async -> LogindUserWatch? {
        guard await system.owner(of: busName) != nil,
              let path = await userPath(on: system, within: .seconds(1)),
              let sessions = try? await system.signals(matching: DBusMatchRule(sender: busName, path: managerPath, interface: "org.freedesktop.login1.Manager")),
              let user = try? await system.signals(matching: DBusMatchRule(sender: busName, path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"))
        else { return nil }
        return LogindUserWatch(system: system, path: path, sessions: sessions, user: user)
    }

    /// Hands each new state of the user to `send` (read after each signal
    /// that may change it) until the bus closes or the task is cancelled.
    func run(send: @escaping @Sendable (DesktopSession.Signal) -> Void) async {
        let (changes, change) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await signal in sessions {
                    guard let member = signal.member, ["SessionNew", "SessionRemoved", "UserNew", "UserRemoved"].contains(member) else { continue }
                    change.yield()
                }
                change.finish()
            }
            group.addTask {
                for await _ in user { change.yield() }
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

    /// The user's `State`, nil when logind does not answer within a second.
    private func state() async -> String? {
        try? await system.call(
            destination: Self.busName, path: path, interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string("org.freedesktop.login1.User"), .string("State")], timeout: .seconds(1)
        ).first?.stringValue
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
