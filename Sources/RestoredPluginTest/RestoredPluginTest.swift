import ArgumentParser
import RestoredEngine
import Dispatch
import Glibc

/// `restored-plugin-test`: runs one plugin through a save, its app's end
/// and a restore, with a real restored on a private bus.
@main
struct RestoredPluginTest: AsyncParsableCommand {
    /// The command's name, usage and `--help`.
    static let configuration = CommandConfiguration(
        commandName: "restored-plugin-test",
        abstract: "Run a plugin through save, its app's end and restore, with a real restored on a private bus.",
        usage: """
            restored-plugin-test PLUGIN.so [--app-id ID] [--option KEY=VALUE]... [--start 'COMMAND ...']...
                                 [--end 'COMMAND ...'] [--check 'COMMAND ...'] [--sandbox [--unit-file PATH]]
                                 [--restored PATH] [--keep] [--walk-timeout SECONDS] [--log-level LEVEL]
            """,
        discussion: """
            Example: restored-plugin-test .build/debug/libFooPlugin.so --app-id org.example.Foo \
            --start 'foo --no-fork' --check 'foo-remote --ping'

            The steps, as a logout and the next login have them:

            setup: a temporary directory (removed at the end unless --keep) with a copy of PLUGIN \
            (mode 0644, as installing it makes it), restored's state directory and the logs, and a \
            private session bus (dbus-daemon, with no activatable services).

            start: each --start command is started, through your user manager when one answers (a \
            transient unit restored-plugin-test-app-*.service; RemainAfterExit=yes keeps a daemon the \
            command forks), else as a child of this program. Then restored starts with \
            --plugin-dir (the copy alone), --state-dir, --autosave-interval 0 (no save but the \
            run's), --walk-timeout and each --option as APP:KEY=VALUE (which is why --option needs \
            --app-id). What its start's restore did is shown too (no-archive: the state is new).

            save: restored-ctl save APP. The apps of --start may still be coming up, so a save the \
            plugin declines or answers "keep" is tried again every 0.5 s until the walk timeout. The \
            save must write an archive: a decline, a keep or a failure fails the run. A partial save \
            (objects left out) is shown, object by object, and fails the run at its end.

            end: restored stops first (SIGTERM; under --sandbox, systemctl --user stop), as at a \
            logout, so its save at the stop finds the apps alive. For restored this stop is not a \
            logout (nothing says the session ends): a plugin that declines there makes restored \
            discard the archive (R6: a decline while the session goes on means the user closed the \
            app), and the run fails, since that plugin would lose the user's state at every restart \
            of restored. Then the apps of --start are ended (SIGTERM, SIGKILL after 5 s), --end runs, \
            and each app process still alive is named.

            restore: restored starts again, and its start restores the app as at a login (reason \
            session). restored's mark of a running login for the run's state directory \
            ($XDG_RUNTIME_DIR/restored/started-*, named after that directory: your own restored's mark \
            is never touched) is removed first, as the end of a login removes it; the runtime \
            directory itself stays yours, so the plugin and its apps find there what they find in real \
            use (sockets, WAYLAND_DISPLAY). If the start did not restore the app (a plugin that waits \
            for a desktop), restored-ctl restore APP does. The outcome must be restored; each object \
            not restored is named with why.

            check: --check runs until it exits 0, at most the walk timeout; if it never does, the run \
            fails.

            sandbox (with --sandbox): each process of a unit app-restored-* of your user manager that \
            appeared during the run, and each process left in restored's unit but restored and its \
            plugin hosts, is shown with its Seccomp and NoNewPrivs. One under restored's sandbox (the \
            plugin started it from inside restored) is a warning that says what to do.

            At the end restored, the bus and the apps of --start are ended; what the restore brought \
            back is left running, for you to look at: it was started on the run's private bus \
            (DBUS_SESSION_BUS_ADDRESS), which ends with the run, so an app that needs its session bus \
            is to be ended and started again by you.

            Environment: the private bus is the session bus of everything under test. restored, the \
            plugin and the commands of --start, --end and --check get it as \
            DBUS_SESSION_BUS_ADDRESS: the run never touches your running restored or its archives, \
            and an app the plugin reaches over D-Bus is on the bus the plugin sees. restored also gets \
            RESTORED_LAUNCH_BUS, your own bus, where the plugin toolkit asks your user manager to start \
            apps outside restored's sandbox, as in real use. Otherwise all get your environment (your \
            restored.conf applies too; --option wins) but what belongs to this process \
            (NOTIFY_SOCKET, LISTEN_*, JOURNAL_STREAM ...) and, for restored, SESSION_MANAGER (it does \
            not register with your desktop's session manager). logind on the system bus is the real \
            one: restored takes its delay lock for the run, as installed.

            --sandbox runs restored as a transient service of your user manager (systemd-run --user, \
            Type=exec) with these settings of the [Service] section of the unit --unit-file names, \
            else of your installed restored.service (systemctl --user cat): \
            \(SandboxProperties.names.joined(separator: ", ")) (SystemCallFilter and the other lists \
            line by line, in order). They are what confines restored and everything it forks, and \
            how it stops; the run prints those applied. Without an installed unit, name one with \
            --unit-file (the repository's systemd/restored.service is not guessed); without a user \
            manager, --sandbox fails.

            Commands (--start, --end, --check) are split into words as a shell splits them (quotes, \
            backslashes) and run without a shell: $VARIABLES, backquotes, a leading ~ and ; | & < > \
            are refused; write sh -c '...' for a shell. A program without a / is looked up in PATH.

            restored is --restored, else the restored beside this program, else the one in PATH; \
            restored-ctl is the one beside it.

            Exit status: 0 when the save and the restore worked (and --check passed); 1 when a step \
            failed, named in one line on standard error (under the last lines of restored's log); 2 for \
            a usage error.
            """,
        version: RestoredVersion.string
    )

    @Argument(help: ArgumentHelp("The plugin's shared object.", valueName: "plugin.so"))
    var plugin: String

    @Option(name: .customLong("app-id"), help: "The app id the plugin must serve; needed for --option.")
    var appID: String?

    @Option(name: .customLong("option"), help: ArgumentHelp("An option of the plugin, as KEY=VALUE; repeat for more.", valueName: "key=value"))
    var options: [String] = []

    @Option(name: .customLong("start"), help: ArgumentHelp("A command that starts an instance of the app before the save; repeat for more.", valueName: "command"), transform: CommandWords.parse)
    var starts: [CommandWords] = []

    @Option(name: .customLong("end"), help: ArgumentHelp("A command that ends the app after restored stopped.", valueName: "command"), transform: CommandWords.parse)
    var end: CommandWords?

    @Option(name: .customLong("check"), help: ArgumentHelp("A command that exits 0 once the app is back; tried until the walk timeout.", valueName: "command"), transform: CommandWords.parse)
    var check: CommandWords?

    @Flag(help: "Run restored under the installed unit's sandbox, as a transient service of your user manager.")
    var sandbox = false

    @Option(name: .customLong("unit-file"), help: ArgumentHelp("The unit whose sandbox --sandbox applies (default: the installed restored.service).", valueName: "path"))
    var unitFile: String?

    @Option(name: .customLong("restored"), help: ArgumentHelp("The restored to run (default: beside this program, else in PATH).", valueName: "path"))
    var restored: String?

    @Flag(help: "Keep the run's directory: the logs and the archives.")
    var keep = false

    @Option(name: .customLong("walk-timeout"), help: ArgumentHelp("Seconds a save or a restore may take, and the waits for the apps and --check.", valueName: "seconds"))
    var walkTimeout = 30

    @Option(name: .customLong("log-level"), help: "restored's log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    /// Refuses, before anything starts, what cannot make a run.
    func validate() throws {
        guard walkTimeout > 0 else { throw ValidationError("--walk-timeout takes a number of seconds, 1 or more") }
        for option in options {
            guard let equals = option.firstIndex(of: "="), equals != option.startIndex, !option[..<equals].contains(":") else {
                throw ValidationError("--option takes KEY=VALUE, not \"\(option)\"")
            }
        }
        if !options.isEmpty && appID == nil {
            throw ValidationError("--option needs the plugin's app id: add --app-id (restored-ctl doctor --plugin-dir DIR names it)")
        }
        if unitFile != nil && !sandbox { throw ValidationError("--unit-file names the sandbox of --sandbox; add --sandbox") }
        guard ["trace", "debug", "info", "notice", "warning", "error", "critical"].contains(logLevel) else {
            throw ValidationError("unknown log level \"\(logLevel)\"; use trace, debug, info, notice, warning, error or critical")
        }
    }

    /// Runs the steps and exits with the run's status. Ctrl-C (or SIGTERM,
    /// SIGHUP) ends restored, the bus and the apps before exiting.
    func run() async throws {
        let cleanup = Cleanup()
        let interruptions = [SIGINT, SIGTERM, SIGHUP].map { (number: Int32) -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                RunReport.error("interrupted; ending restored, the bus and the apps")
                cleanup.run()
                Glibc.exit(128 + number)
            }
            source.resume()
            return source
        }
        let settings = TestRun.Settings(
            plugin: plugin, appID: appID, options: options, starts: starts, end: end, check: check, sandbox: sandbox,
            unitFile: unitFile, restored: restored, keep: keep, walkTimeout: walkTimeout, logLevel: logLevel
        )
        let status = await TestRun(settings: settings, cleanup: cleanup).run()
        interruptions.forEach { $0.cancel() }
        Glibc.exit(status)
    }

    /// Parses the command line; a usage error is one line and exit status 2.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .success {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            let line = message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            RunReport.error("\(line) (restored-plugin-test --help says more)")
            Glibc.exit(2)
        }
    }
}
