/// The environment variables that name a desktop session: its display, its
/// kind, and the sockets of its window manager and session manager.
///
/// restored hands these to the plugin host of a plugin that needs the
/// desktop, once the desktop is there, and the plugin toolkit's
/// `AppLauncher` hands the host's over to an app it starts: one list, so
/// that what a host receives is what an app it starts receives.
public enum DesktopVariables {
    /// Every name, in the order they are said.
    public static let names = [
        "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE", "XDG_SESSION_DESKTOP",
        "DESKTOP_SESSION", "SWAYSOCK", "I3SOCK", "GNOME_SETUP_DISPLAY", "SESSION_MANAGER",
    ]

    /// Those of `environment` that are set and not empty.
    public static func present(in environment: [String: String]) -> [String: String] {
        var found: [String: String] = [:]
        for name in names {
            if let value = environment[name], !value.isEmpty { found[name] = value }
        }
        return found
    }
}
