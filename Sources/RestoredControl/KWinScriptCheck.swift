import Glibc
import RestoredDBus
import SystemSupport

/// `restored-ctl doctor`'s look at restored's KWin script, where KWin runs:
/// the only way windows are read and placed under Plasma on Wayland. The
/// session plugin loads it itself; it only has to be installed (in
/// `XDG_DATA_HOME` or an `XDG_DATA_DIRS` entry, `restored/kwin/places.js`).
struct KWinScriptCheck {
    /// Where the script is, below each data directory.
    static let scriptPath = "restored/kwin/places.js"

    let environment: [String: String]

    /// Where the script is installed, or nil.
    var installation: String? {
        let directories = XDGBaseDirectories(environment: environment)
        return ([directories.dataHome] + directories.dataDirectories).map { $0 + "/" + Self.scriptPath }.first { access($0, R_OK) == 0 }
    }

    /// The finding, or nil where KWin's scripting is not on `session`.
    func check(on session: DBusConnection) async -> DoctorCheck? {
        guard await session.owner(of: "org.kde.KWin") != nil,
              (try? await session.call(
                  destination: "org.kde.KWin", path: "/Scripting", interface: "org.kde.kwin.Scripting", member: "isScriptLoaded",
                  arguments: [.string("restored-places")], timeout: .seconds(5)
              )) != nil
        else { return nil }
        guard let installation else {
            return DoctorCheck("KWin script", .warning, "KWin runs, but restored's KWin script (\(Self.scriptPath)) is in no data directory: windows come back where KWin puts them",
                               remedy: "install restored with scripts/install (it installs the script under PREFIX/share), and keep PREFIX/share in XDG_DATA_DIRS")
        }
        return DoctorCheck("KWin script", .ok, "\(installation): the session plugin loads it while it reads or places windows")
    }
}
