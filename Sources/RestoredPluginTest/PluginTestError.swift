import SystemPackage

/// Why a run of `restored-plugin-test` stopped: each case one line for the
/// plugin's author, saying what went wrong and what to do.
enum PluginTestError: Error, CustomStringConvertible {
    /// The plugin file given cannot be what restored loads.
    case unusablePluginFile(path: String, reason: String)
    /// A program the run needs is not installed (or not where it was named).
    case missingProgram(name: String, remedy: String)
    /// `--sandbox` was asked for and no user manager answers.
    case noUserManager(bus: String?)
    /// The unit whose sandbox is to be applied could not be read.
    case unitFileUnreadable(reason: String)
    /// A system call of the harness itself failed.
    case system(call: String, Errno)
    /// A program could not be started, or did not finish in time.
    case cannotRun(command: String, reason: String)
    /// The private bus did not come up.
    case busDidNotStart(reason: String)
    /// restored did not come up on the private bus.
    case daemonDidNotStart(reason: String)
    /// restored did not load the plugin.
    case pluginNotLoaded(reason: String)
    /// The plugin serves another app than `--app-id` says.
    case otherApp(expected: String, found: String)
    /// `restored-ctl` failed in a way that is not a save's or a restore's outcome.
    case controlFailed(command: String, message: String)
    /// The save wrote no archive.
    case saveWroteNothing(reason: String)
    /// The archive was gone after restored's stop.
    case archiveLostAtStop(reason: String)
    /// The restore did not restore the app.
    case restoreFailed(reason: String)
    /// `--check` never exited 0.
    case checkFailed(reason: String)

    /// One line.
    var description: String {
        switch self {
        case .unusablePluginFile(let path, let reason):
            "\(path): \(reason)"
        case .missingProgram(let name, let remedy):
            "\(name) is not installed or not executable; \(remedy)"
        case .noUserManager(let bus?):
            "--sandbox needs your systemd user manager, and none answers on \(bus); run this inside your login session (systemctl --user status should work), or leave out --sandbox"
        case .noUserManager(nil):
            "--sandbox needs your systemd user manager, and there is no session bus to ask (DBUS_SESSION_BUS_ADDRESS unset and no $XDG_RUNTIME_DIR/bus); run this inside your login session, or leave out --sandbox"
        case .unitFileUnreadable(let reason):
            reason
        case .system(let call, let errno):
            "\(call) failed: \(errno)"
        case .cannotRun(let command, let reason):
            "cannot run \(command): \(reason)"
        case .busDidNotStart(let reason):
            "the private bus did not start: \(reason)"
        case .daemonDidNotStart(let reason):
            "restored did not start: \(reason)"
        case .pluginNotLoaded(let reason):
            "restored did not load the plugin: \(reason)"
        case .otherApp(let expected, let found):
            "the plugin serves \(found), not \(expected) (--app-id); pass --app-id \(found) or fix the plugin's app id"
        case .controlFailed(let command, let message):
            "\(command): \(message)"
        case .saveWroteNothing(let reason):
            "the save wrote no archive: \(reason)"
        case .archiveLostAtStop(let reason):
            reason
        case .restoreFailed(let reason):
            reason
        case .checkFailed(let reason):
            reason
        }
    }
}
