import Glibc
import RestoredDaemon
import SystemPackage
import SystemSupport

/// restored's mark of a running login, for the run's state directory:
/// `$XDG_RUNTIME_DIR/restored/started-<FNV-1a of the state directory, in
/// hex>`, which restored leaves when it starts and removes when it sees
/// the login end (`docs/daemon.md`, "Why a walk runs").
///
/// The run plays a logout and a login between its two starts of restored,
/// but restored's stop in the run is not a login's end (the user manager
/// does not stop, logind does not say the user is closing), so it leaves
/// its mark, and its second start would be a recovery (R7: a plugin that
/// does not restore into a running app is not walked). Removing the mark,
/// as a login's end does, makes the second start a login, with the restore
/// reason `session`: what the plugin meets at the next login. The mark is
/// named after the run's own state directory (restored's ``SessionMarker``
/// names it): no mark of the user's own restored is ever touched.
struct LoginMark: Sendable {
    /// The mark's path, or nil without `XDG_RUNTIME_DIR` (restored then
    /// leaves none: every start is a login).
    let file: String?
    /// Whether `$XDG_RUNTIME_DIR/restored` was there before the run.
    private let directoryExisted: Bool

    /// The mark of `stateDirectory` for a restored run with `environment`.
    init(stateDirectory: String, environment: [String: String]) {
        guard let runtime = XDGBaseDirectories(environment: environment).runtimeDirectory else {
            file = nil
            directoryExisted = true
            return
        }
        file = SessionMarker(stateDirectory: FilePath(stateDirectory), environment: environment).file?.string
        directoryExisted = access(runtime + "/restored", F_OK) == 0
    }

    /// Whether the mark is there.
    var exists: Bool { file.map { access($0, F_OK) == 0 } ?? false }

    /// Removes the mark, as the end of a login does.
    func remove() {
        guard let file else { return }
        _ = unlink(file)
    }

    /// Removes the mark and, when the run made it, its empty directory.
    func removeAll() {
        remove()
        if !directoryExisted, let file {
            _ = rmdir(String(file[..<(file.lastIndex(of: "/") ?? file.endIndex)]))
        }
    }
}
