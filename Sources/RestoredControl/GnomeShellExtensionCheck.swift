import Glibc
import RestoredDBus
import SystemSupport

/// `restored-ctl doctor`'s look at restored's GNOME Shell extension, where
/// GNOME Shell runs: the only way windows are read and placed under GNOME
/// on Wayland. Which of its two entries the running shell takes (by its
/// major version), whether that one is installed (in `XDG_DATA_HOME` or an
/// `XDG_DATA_DIRS` entry), and whether the shell has it enabled, with the
/// one command that enables it.
struct GnomeShellExtensionCheck {
    /// The entry for GNOME Shell 45 and later (ES modules).
    static let modulesUUID = "window-places@restored"
    /// The entry for GNOME Shell 43 and 44 (legacy imports).
    static let legacyUUID = "window-places-legacy@restored"

    let environment: [String: String]

    /// The extension's entry for GNOME Shell `version` ("43.9").
    static func uuid(forShellVersion version: String) -> String {
        let major = Int(version.split(separator: ".").first ?? "") ?? 0
        return major >= 45 || major == 0 ? modulesUUID : legacyUUID
    }

    /// The extension directories GNOME Shell searches, in its order.
    var extensionDirectories: [String] {
        let directories = XDGBaseDirectories(environment: environment)
        return ([directories.dataHome] + directories.dataDirectories).map { $0 + "/gnome-shell/extensions" }
    }

    /// Where `uuid` is installed, or nil.
    func installation(of uuid: String) -> String? {
        extensionDirectories.map { $0 + "/" + uuid }.first { access($0 + "/metadata.json", R_OK) == 0 }
    }

    /// The finding, or nil where GNOME Shell is not on `session`.
    func check(on session: DBusConnection) async -> DoctorCheck? {
        guard await session.owner(of: "org.gnome.Shell") != nil else { return nil }
        let version = (try? await session.call(
            destination: "org.gnome.Shell", path: "/org/gnome/Shell", interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string("org.gnome.Shell"), .string("ShellVersion")], timeout: .seconds(5)
        ))?.first?.stringValue ?? "?"
        guard version != "?" else {
            return DoctorCheck("GNOME Shell extension", .warning, "GNOME Shell runs but does not say its version, so which of restored's extensions it takes is not known",
                               remedy: "gnome-extensions enable \(Self.legacyUUID) on GNOME 43 and 44, gnome-extensions enable \(Self.modulesUUID) on 45 and later")
        }
        let uuid = Self.uuid(forShellVersion: version)
        let wayland = environment["XDG_SESSION_TYPE"] == "wayland" || environment["WAYLAND_DISPLAY"] != nil
        let enable = "gnome-extensions enable \(uuid)"
        let nextLogin = wayland ? "; on Wayland an extension installed while GNOME Shell runs loads at your next login" : ""
        let name = "GNOME Shell extension"
        guard let installed = installation(of: uuid) else {
            return DoctorCheck(name, .warning, "GNOME Shell \(version) runs, but restored's extension \(uuid) is not installed: windows come back where GNOME puts them",
                               remedy: "install restored with scripts/install (it installs the extension), then: \(enable)\(nextLogin)")
        }
        let info = (try? await session.call(
            destination: "org.gnome.Shell", path: "/org/gnome/Shell", interface: "org.gnome.Shell.Extensions", member: "GetExtensionInfo",
            arguments: [.string(uuid)], timeout: .seconds(5)
        ))?.first?.stringKeyedValue ?? [:]
        guard let state = info["state"].flatMap(Self.number) else {
            return DoctorCheck(name, .warning, "\(uuid) is installed in \(installed), but GNOME Shell \(version) has not loaded it",
                               remedy: "\(enable)\(wayland ? ", then log out and in (on Wayland an extension installed while GNOME Shell runs loads at the next login)" : "")")
        }
        // GNOME Shell's ExtensionState: 1 enabled (45 and later: active), 2 disabled, 3 error, 4 out of date.
        switch Int(state) {
        case 1:
            return DoctorCheck(name, .ok, "\(uuid) is enabled in GNOME Shell \(version): restored reads and places windows through it")
        case 3:
            let error = info["error"]?.stringValue ?? "no detail"
            return DoctorCheck(name, .warning, "\(uuid) failed in GNOME Shell \(version): \(error)", remedy: "see journalctl --user -b for gnome-shell's lines about it, then \(enable)")
        case 4:
            return DoctorCheck(name, .warning, "\(uuid) is installed but GNOME Shell \(version) calls it out of date", remedy: "update restored (its extension lists the GNOME versions it is meant for)")
        default:
            return DoctorCheck(name, .warning, "\(uuid) is installed in \(installed) but not enabled: windows come back where GNOME puts them", remedy: enable)
        }
    }

    /// A D-Bus number of any kind as a Double (the shell says states as doubles).
    private static func number(_ value: DBusValue) -> Double? {
        if case .double(let number) = value.unwrapped { return number }
        return value.int64Value.map(Double.init)
    }
}
