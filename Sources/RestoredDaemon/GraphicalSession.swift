import RestoredDBus
import SystemPackage
import SystemSupport
import UnixSocket
import X11Client

/// Whether the desktop is there for the apps of the graphical session, and
/// the variables that reach it.
///
/// A desktop, once its display runs, exports `DISPLAY` or `WAYLAND_DISPLAY`
/// to the user manager (`systemctl --user import-environment`, or
/// `dbus-update-activation-environment --systemd`) and then starts its
/// session target, which binds `graphical-session.target`
/// (systemd.special(7)). restored, wanted by `default.target`, starts
/// before all that, so it asks: the desktop is there when the manager's
/// `graphical-session.target` is active, or when a display variable in the
/// manager's environment (or restored's own) names a display that accepts a
/// connection. Desktops that start no session target (i3 from `.xinitrc`,
/// Xfce 4.18) are found by the second test once they import their variables;
/// a display variable left from an earlier session names a socket that no
/// longer answers, and is not taken for a desktop.
struct GraphicalSession: Sendable {
    /// The variables of a desktop a plugin host takes over.
    static let variables = DesktopVariables.names
    /// How long the user manager may take to answer.
    static let answerBudget = Duration.milliseconds(500)

    /// The bus of the user manager.
    let sessionBus: DBusConnection
    /// restored's own environment.
    let environment: [String: String]

    /// The runtime directory, where Wayland sockets are.
    var runtimeDirectory: String? { XDGBaseDirectories(environment: environment).runtimeDirectory }

    /// What one look at the user manager and the displays found.
    struct Finding: Sendable, Hashable {
        /// The desktop's variables: the manager's over restored's own.
        var variables: [String: String]
        /// Whether `graphical-session.target` is active.
        var targetActive: Bool
        /// The display the variables name that takes a connection
        /// (`wayland-1`, `:0`, or a remote `host:0`, trusted).
        var display: String?

        /// Whether a desktop is there.
        var isDesktop: Bool { targetActive || display != nil }
    }

    /// Looks once: the manager's environment, its target, the display.
    func look() async -> Finding {
        var variables = environment.filter { Self.variables.contains($0.key) }
        if let manager = await managerEnvironment() {
            variables.merge(manager.filter { Self.variables.contains($0.key) }) { _, manager in manager }
        }
        let active = await targetIsActive()
        let display = Self.reachableDisplay(variables, runtimeDirectory: runtimeDirectory)
        return Finding(variables: variables, targetActive: active, display: display)
    }

    /// Whether `variables` name a display that accepts a connection.
    static func reachesDisplay(_ variables: [String: String], runtimeDirectory: String?) -> Bool {
        reachableDisplay(variables, runtimeDirectory: runtimeDirectory) != nil
    }

    /// The display `variables` name that accepts a connection: the Wayland
    /// socket (relative to the runtime directory), or the local X server's
    /// socket of `:N`; an X display elsewhere (`host:N`) is trusted.
    static func reachableDisplay(_ variables: [String: String], runtimeDirectory: String?) -> String? {
        if let wayland = variables["WAYLAND_DISPLAY"], !wayland.isEmpty {
            let path = wayland.hasPrefix("/") ? wayland : runtimeDirectory.map { $0 + "/" + wayland }
            if let path, accepts(FilePath(path)) { return wayland }
        }
        guard let name = variables["DISPLAY"], !name.isEmpty else { return nil }
        guard let x11 = X11Display(name) else {
            // Another host's display cannot be checked from here; a local name that does not read is none.
            return name.hasPrefix(":") || name.hasPrefix("unix:") ? nil : name
        }
        return accepts(FilePath(x11.socketPath)) ? ":\(x11.number)" : nil
    }

    private static func accepts(_ socket: FilePath) -> Bool {
        (try? UnixStreamSocket(connectingTo: socket)) != nil
    }

    /// The user manager's environment block, or nil without a manager.
    private func managerEnvironment() async -> [String: String]? {
        guard let reply = try? await sessionBus.call(
            destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1", interface: "org.freedesktop.DBus.Properties",
            member: "Get", arguments: [.string("org.freedesktop.systemd1.Manager"), .string("Environment")], timeout: Self.answerBudget
        ), let entries = reply.first?.unwrapped.arrayValue else { return nil }
        var result: [String: String] = [:]
        for entry in entries.compactMap(\.stringValue) {
            guard let equals = entry.firstIndex(of: "=") else { continue }
            result[String(entry[..<equals])] = String(entry[entry.index(after: equals)...])
        }
        return result
    }

    /// Whether the manager's `graphical-session.target` is active.
    func targetIsActive() async -> Bool {
        guard let path = try? await sessionBus.call(
            destination: "org.freedesktop.systemd1", path: "/org/freedesktop/systemd1", interface: "org.freedesktop.systemd1.Manager",
            member: "GetUnit", arguments: [.string("graphical-session.target")], timeout: Self.answerBudget
        ).first?.stringValue else { return false }
        let state = try? await sessionBus.call(
            destination: "org.freedesktop.systemd1", path: path, interface: "org.freedesktop.DBus.Properties",
            member: "Get", arguments: [.string("org.freedesktop.systemd1.Unit"), .string("ActiveState")], timeout: Self.answerBudget
        )
        return state?.first?.stringValue == "active"
    }
}
