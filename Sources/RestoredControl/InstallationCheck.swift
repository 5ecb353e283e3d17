import Glibc

/// `restored-ctl doctor`'s look for restored installed twice: from the
/// Debian package under `/usr` and from source (`scripts/install`) under
/// `/usr/local`.
///
/// Which one runs: systemd searches `/usr/local/lib/systemd/user` before
/// `/usr/lib/systemd/user`, so the source install's unit wins and starts
/// `/usr/local/bin/restored`; that restored looks for plugins in its own
/// prefix's `lib/restored/plugins`, then in `/usr/local`'s and `/usr`'s
/// (the first plugin of an app id found is the one loaded). The two were
/// built with different Swift runtimes, so a Swift plugin of one prefix
/// may not load in the other's restored: one install should go.
struct InstallationCheck {
    /// A prefix's unit, the mark of an install there.
    static func unit(under prefix: String) -> String { prefix + "/lib/systemd/user/restored.service" }

    /// The prefixes looked at: the package's and the source install's default.
    var packagePrefix = "/usr"
    var sourcePrefix = "/usr/local"

    /// The finding, or nil when restored is installed once (or not at all).
    func check() -> DoctorCheck? {
        guard access(Self.unit(under: packagePrefix), F_OK) == 0, access(Self.unit(under: sourcePrefix), F_OK) == 0 else { return nil }
        return DoctorCheck(
            "installation", .warning,
            "restored is installed twice: from the package under \(packagePrefix) and from source under \(sourcePrefix); systemd starts the unit under \(sourcePrefix), so \(sourcePrefix)/bin/restored runs, with the plugins of \(sourcePrefix)/lib/restored/plugins first",
            remedy: "keep one: remove the source install's files (the list heads scripts/install), or the package (sudo apt remove restored), then systemctl --user daemon-reload && systemctl --user restart restored"
        )
    }
}
