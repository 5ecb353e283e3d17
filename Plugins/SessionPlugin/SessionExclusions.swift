import DesktopEntries
import FoundationEssentials
import SystemSupport

/// The apps the session plugin leaves out, each with the reason
/// `restored-ctl show` gives for it.
struct SessionExclusions {
    /// Web browsers restore their own windows and tabs; a second start by
    /// restored would open a second, empty window.
    static let browsers: Set<String> = [
        "firefox.desktop", "firefox-esr.desktop", "org.mozilla.firefox.desktop", "librewolf.desktop",
        "io.gitlab.librewolf-community.desktop", "chromium.desktop", "chromium-browser.desktop", "org.chromium.Chromium.desktop",
        "google-chrome.desktop", "google-chrome-beta.desktop", "brave-browser.desktop", "com.brave.Browser.desktop",
        "microsoft-edge.desktop", "vivaldi-stable.desktop", "opera.desktop", "org.gnome.Epiphany.desktop",
        "org.qutebrowser.qutebrowser.desktop", "org.kde.falkon.desktop", "torbrowser.desktop", "zen.desktop",
        "firefox_firefox.desktop", "chromium_chromium.desktop", "com.google.Chrome.desktop", "com.microsoft.Edge.desktop",
        "com.vivaldi.Vivaldi.desktop", "com.opera.Opera.desktop", "app.zen_browser.zen.desktop", "one.ablaze.floorp.desktop",
    ]

    /// The desktop's own parts: its shell, panels, desktop, window
    /// manager and session services start with the session.
    static let desktopParts: Set<String> = [
        "org.gnome.Shell.desktop", "gnome-shell.desktop", "org.kde.plasmashell.desktop",
        "org.kde.krunner.desktop", "org.kde.kwin.desktop", "kwin_x11.desktop", "kwin_wayland.desktop", "xfce4-panel.desktop",
        "xfdesktop.desktop", "xfwm4.desktop", "xfce4-session.desktop", "xfce4-notifyd.desktop", "lxqt-panel.desktop",
        "lxpanel.desktop", "pcmanfm-desktop.desktop", "openbox.desktop", "mutter.desktop", "marco.desktop", "mate-panel.desktop",
        "cinnamon.desktop", "nemo-desktop.desktop", "budgie-panel.desktop", "waybar.desktop", "polybar.desktop",
    ]

    /// Why an app is left out.
    enum Reason: String {
        case ownPlugin = "restored by its own plugin"
        case browser = "restores its own windows (web browser)"
        case autostart = "starts with the session anyway (XDG autostart)"
        case desktopPart = "a part of the desktop itself"
        case userList = "excluded by the user (exclude option)"
        case terminal = "runs in a terminal (Terminal=true)"
    }

    /// App ids of the other loaded plugins.
    let plugins: Set<String>
    /// Desktop ids of the XDG autostart entries.
    let autostart: Set<String>
    /// The user's own list (`exclude` option).
    let user: Set<String>

    /// The exclusions for a plugin with `options`, in `environment`.
    init(options: [String: String], environment: [String: String]) {
        plugins = Set(OptionList.names(options["restored.apps"]))
        user = Set(OptionList.names(options["exclude"]).map { $0.hasSuffix(".desktop") ? $0 : $0 + ".desktop" })
        autostart = Self.autostartIDs(environment: environment)
    }

    /// Why `id` (whose entry is `entry`) is left out; nil when it is kept.
    /// A browser is one of the list, or any entry in the `WebBrowser` category.
    func reason(for id: String, entry: DesktopEntry? = nil) -> Reason? {
        let bare = id.hasSuffix(".desktop") ? String(id.dropLast(8)) : id
        if plugins.contains(bare) { return .ownPlugin }
        if user.contains(id) { return .userList }
        if Self.browsers.contains(id) || entry?.categories.contains("WebBrowser") == true { return .browser }
        if Self.desktopParts.contains(id) || id.hasPrefix("org.gnome.SettingsDaemon.") { return .desktopPart }
        if autostart.contains(id) { return .autostart }
        if entry?.terminal == true { return .terminal }
        return nil
    }

    /// The file names in `$XDG_CONFIG_HOME/autostart` and each
    /// `$XDG_CONFIG_DIRS/autostart` (default `/etc/xdg`): an autostart
    /// entry's id is its file name.
    static func autostartIDs(environment: [String: String]) -> Set<String> {
        let directories = XDGBaseDirectories(environment: environment)
        var ids: Set<String> = []
        for directory in [directories.configHome] + directories.configDirectories {
            for file in (try? FileManager.default.contentsOfDirectory(atPath: directory + "/autostart")) ?? [] where file.hasSuffix(".desktop") {
                ids.insert(file)
            }
        }
        return ids
    }
}
