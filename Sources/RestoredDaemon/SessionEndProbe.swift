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
/// which marks the user `closing` at logout and says `PreparingForShutdown`
/// at a shutdown. Any is enough; each ends the login for restored's mark
/// (``SessionMarker/close()``).
struct SessionEndProbe: Sendable {
    /// How long each witness may take to answer.
    static let answerBudget = Duration.milliseconds(500)

    /// The bus of the user manager (the session bus).
    let sessionBus: DBusConnection
    /// The daemon's connection to the system bus, where logind is; nil
    /// when the system bus was not reachable at start.
    let systemBus: DBusConnection?

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
        async let logind = logindState()
        if await manager == "stopping" { return "the user manager is stopping" }
        let (user, shuttingDown) = await logind
        if user == "closing" { return "logind says the user's session is closing" }
        if shuttingDown { return "logind says the machine is shutting down" }
        return nil
    }

    private func userManagerState() async -> String? {
        let reply = try? await sessionBus.call(
            destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1", interface: "org.freedesktop.DBus.Properties",
            member: "Get", arguments: [.string("org.freedesktop.systemd1.Manager"), .string("SystemState")], timeout: Self.answerBudget
        )
        return reply?.first?.stringValue
    }

    /// The user's state and whether the machine is shutting down.
    private func logindState() async -> (user: String?, shuttingDown: Bool) {
        guard let system = systemBus else { return (nil, false) }
        async let shutdown = system.call(
            destination: "org.freedesktop.login1", path: "/org/freedesktop/login1", interface: "org.freedesktop.DBus.Properties",
            member: "Get", arguments: [.string("org.freedesktop.login1.Manager"), .string("PreparingForShutdown")], timeout: Self.answerBudget
        )
        async let user = userState(on: system)
        let shuttingDown = (try? await shutdown)?.first?.boolValue == true
        return (await user, shuttingDown)
    }

    private func userState(on system: DBusConnection) async -> String? {
        guard let path = await LogindUserWatch.userPath(on: system, within: Self.answerBudget) else { return nil }
        let reply = try? await system.call(
            destination: "org.freedesktop.login1", path: path, interface: "org.freedesktop.DBus.Properties",
            member: "Get", arguments: [.string("org.freedesktop.login1.User"), .string("State")], timeout: Self.answerBudget
        )
        return reply?.first?.stringValue
    }
}
