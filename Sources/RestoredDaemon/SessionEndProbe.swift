import Glibc
import RestoredDBus
import Synchronization

/// Whether the user's session is ending, asked once when restored is told
/// to stop: the save then runs for ``SaveOccasion/sessionEnd`` (a plugin that
/// finds its app gone declines, and the last archive is kept), otherwise for
/// ``SaveOccasion/daemonStop`` (restored alone stops; the apps run on).
///
/// Two witnesses, each asked with a short deadline: the user manager, whose
/// `SystemState` is `stopping` while it takes every unit down (a logout with
/// `dbus-user-session`, the last session of the user closing), and logind,
/// which marks the user `closing` at logout and shutdown. Either is enough.
struct SessionEndProbe: Sendable {
    /// How long each witness may take to answer.
    static let answerBudget = Duration.milliseconds(500)

    /// The bus of the user manager (the session bus).
    let sessionBus: DBusConnection
    /// Where logind is.
    let systemBus: DBusConnection.Bus

    /// What says the session ends (`the user manager is stopping`), or nil
    /// when nothing does or nothing answers within a second.
    func witness() async -> String? {
        let answer = Mutex<String?>(nil)
        _ = await Deadline.race(deadline: .now + Self.answerBudget * 2) {
            let found = await self.ask()
            answer.withLock { $0 = found }
        }
        return answer.withLock { $0 }
    }

    private func ask() async -> String? {
        async let manager = userManagerState()
        async let user = logindUserState()
        if await manager == "stopping" { return "the user manager is stopping" }
        if await user == "closing" { return "logind says the user's session is closing" }
        return nil
    }

    private func userManagerState() async -> String? {
        let reply = try? await sessionBus.call(
            destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1", interface: "org.freedesktop.DBus.Properties",
            member: "Get", arguments: [.string("org.freedesktop.systemd1.Manager"), .string("SystemState")], timeout: Self.answerBudget
        )
        return reply?.first?.stringValue
    }

    private func logindUserState() async -> String? {
        guard let system = try? await DBusConnection.connect(to: systemBus) else { return nil }
        defer { system.close() }
        guard let path = try? await system.call(
            destination: "org.freedesktop.login1", path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
            member: "GetUser", arguments: [.uint32(getuid())], timeout: Self.answerBudget
        ).first?.stringValue else { return nil }
        let reply = try? await system.call(
            destination: "org.freedesktop.login1", path: path, interface: "org.freedesktop.DBus.Properties",
            member: "Get", arguments: [.string("org.freedesktop.login1.User"), .string("State")], timeout: Self.answerBudget
        )
        return reply?.first?.stringValue
    }
}
