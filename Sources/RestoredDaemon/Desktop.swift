public import FoundationEssentials

/// One desktop of the login: what restored found of it when it started.
///
/// A login (the user manager and `$XDG_RUNTIME_DIR`) holds zero or more
/// desktops one after the other; see ``DesktopSession``.
public struct Desktop: Sendable, Hashable {
    /// The desktop's variables a plugin host takes over (``GraphicalSession/variables``).
    public var variables: [String: String]
    /// The display restored reached: `wayland-1` or `:0`; nil when only
    /// `graphical-session.target` says a desktop is there.
    public var display: String?
    /// Whether the user manager's `graphical-session.target` was active
    /// when it started: then its stopping ends the desktop.
    public var boundToTarget: Bool
    /// When restored saw it start.
    public var since: Date
    /// What made restored see it.
    public var startedBy: String

    /// The window manager its variables name: sway, i3, or the desktop's own name.
    public var windowManager: String? {
        if variables["SWAYSOCK"]?.isEmpty == false { return "sway" }
        if variables["I3SOCK"]?.isEmpty == false { return "i3" }
        if let current = variables["XDG_CURRENT_DESKTOP"], !current.isEmpty { return current }
        return nil
    }

    /// The session manager it has: an X session manager (XSMP) when
    /// `SESSION_MANAGER` is set.
    public var sessionManager: String? {
        variables["SESSION_MANAGER"]?.isEmpty == false ? "XSMP" : nil
    }

    /// One line: `wayland-1 (sway)`, `:0 (i3, XSMP)`, `graphical-session.target`.
    public var description: String {
        let name = display ?? "graphical-session.target"
        let parts = [windowManager, sessionManager].compactMap { $0 }
        return parts.isEmpty ? name : "\(name) (\(parts.joined(separator: ", ")))"
    }
}
