import Foundation
import Glibc
import ProcessSpawning
import RestoredTesting
import SystemPackage
import SystemSupport

/// One run of a plugin through save, its app's end and restore, step by
/// step, each step printing what it saw (``RunReport``) and the first that
/// fails ending the run. The command's `--help` says what each step does
/// and why.
final class TestRun {
    /// What the run was asked to do.
    struct Settings: Sendable {
        /// The plugin file.
        var plugin: String
        /// The app id the plugin must serve, if given.
        var appID: String?
        /// The plugin's options, `KEY=VALUE`.
        var options: [String]
        /// The app instances to start.
        var starts: [CommandWords]
        /// What ends the app after restored stopped.
        var end: CommandWords?
        /// What says the restore worked.
        var check: CommandWords?
        /// Whether restored runs under its unit's sandbox.
        var sandbox: Bool
        /// The unit whose sandbox applies.
        var unitFile: String?
        /// restored, when named.
        var restored: String?
        /// Whether the run's directory is kept.
        var keep: Bool
        /// The walk timeout, in seconds.
        var walkTimeout: Int
        /// restored's log level.
        var logLevel: String
    }

    /// The steps, as the failure line names them.
    enum Step: String {
        case setup, start, save, end, restore, check
    }

    /// The variables of the caller that belong to the caller's own process
    /// (its unit's sockets and stream, its session manager's client id):
    /// none of them is passed on.
    static let privateVariables: Set<String> = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "INVOCATION_ID",
        "JOURNAL_STREAM", "SYSTEMD_EXEC_PID", "MANAGERPID", "DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE",
    ]

    private let settings: Settings
    private let cleanup: Cleanup
    private let environment = ProcessInfo.processInfo.environment
    private var step = Step.setup
    private var context: Context?
    /// Failures that do not stop the run but fail it (a partial save).
    private var laterFailures: [(Step, String)] = []

    /// What the setup made.
    private struct Context {
        let directory: RunDirectory
        let bus: PrivateBusDaemon
        let manager: UserManager?
        let daemon: DaemonRunner
        let apps: AppProcesses
        let control: ControlClient
        let mark: LoginMark
        let appEnvironment: [String: String]
        let unitsBefore: Set<String>
        var appID = ""
        var markLeft = false
        var savedGeneration: UInt64 = 0
        var daemonPID: Int32?
    }

    /// A run of `settings`, whose resources `cleanup` undoes.
    init(settings: Settings, cleanup: Cleanup) {
        self.settings = settings
        self.cleanup = cleanup
    }

    /// Runs every step, then ends what the run started; returns the exit status.
    func run() async -> Int32 {
        var failed = false
        do throws(PluginTestError) {
            try await setUp()
            step = .start
            try await startApps()
            try await firstStart()
            step = .save
            try await save()
            step = .end
            try await endApp()
            step = .restore
            try await restore()
            if settings.check != nil {
                step = .check
                try await check()
            }
            if settings.sandbox { await reportSandbox() }
        } catch {
            failed = true
            if let context, step != .setup {
                RunReport.logTail(context.directory.daemonLog(step == .restore || step == .check ? 2 : 1))
            }
            RunReport.failure(step: step.rawValue, error.description)
        }
        await finish()
        if !failed, let (step, reason) = laterFailures.first {
            RunReport.failure(step: step.rawValue, reason)
            failed = true
        }
        if !failed { RunReport.success("\(context?.appID ?? "the app") was saved, ended and restored") }
        return failed ? 1 : 0
    }

    // MARK: Steps

    private func setUp() async throws(PluginTestError) {
        let (plugin, pluginFile) = try Self.checkedPlugin(settings.plugin)
        let searchPath = ExecutableSearchPath.of(environment)
        let restored = try Self.restoredExecutable(named: settings.restored, searchPath: searchPath)
        let restoredDirectory = String(restored[..<(restored.lastIndex(of: "/") ?? restored.startIndex)])
        let control = try Self.program("restored-ctl", in: [restoredDirectory, Self.ownDirectory()], searchPath: searchPath, remedy: "install restored completely (scripts/install); it belongs beside restored")
        let dbusDaemon = try Self.program("dbus-daemon", in: [], searchPath: searchPath + ":/usr/bin:/bin", remedy: "install it (Debian: apt install dbus-daemon)")
        let callerBus = UserManager.callerBus(environment: environment)
        let manager = await UserManager.find(bus: callerBus, environment: environment)
        var mode = DaemonRunner.Mode.plain
        if settings.sandbox {
            guard let manager else { throw .noUserManager(bus: callerBus) }
            mode = .sandboxed(manager, try await SandboxProperties.load(unitFile: settings.unitFile, manager: manager))
        }

        let directory = try RunDirectory.make(environment: environment)
        let keep = settings.keep
        cleanup.add { if !keep { directory.remove() } }
        let installed = try directory.install(plugin: pluginFile, as: ProgramName.of(plugin))
        let bus: PrivateBusDaemon
        do throws(PrivateBusError) {
            bus = try await PrivateBusDaemon.start(in: directory.path, options: PrivateBusDaemon.Options(dbusDaemon: FilePath(dbusDaemon)))
        } catch {
            throw .busDidNotStart(reason: error.description)
        }
        cleanup.add { bus.stop() }

        var base = environment.filter { !Self.privateVariables.contains($0.key) }
        base["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let appEnvironment = base
        // restored: no session manager of the caller's to register with
        // (XSMP), its plugins found only in the run's directory, and the
        // user manager asked on the caller's bus.
        var daemonEnvironment = base.filter { !["SESSION_MANAGER", "DESKTOP_AUTOSTART_ID", "RESTORED_PLUGIN_PATH", "RESTORED_LAUNCH_BUS"].contains($0.key) }
        if let callerBus { daemonEnvironment["RESTORED_LAUNCH_BUS"] = callerBus }
        var arguments = [
            "--plugin-dir", directory.plugins, "--state-dir", directory.state, "--autosave-interval", "0",
            "--walk-timeout", String(settings.walkTimeout), "--log-level", settings.logLevel,
        ]
        for option in settings.options { arguments += ["--option", "\(settings.appID ?? ""):\(option)"] }
        let daemon = DaemonRunner(executable: restored, arguments: arguments, environment: daemonEnvironment, mode: mode, bus: bus)
        cleanup.add { daemon.kill() }
        let apps = AppProcesses(manager: manager, environment: appEnvironment, directory: directory)
        cleanup.add { apps.kill() }
        let mark = LoginMark(stateDirectory: directory.state, environment: daemonEnvironment)
        cleanup.add { mark.removeAll() }
        let unitsBefore = settings.sandbox ? Set(await manager?.units(matching: SandboxInheritance.launchedUnits) ?? []) : []
        context = Context(
            directory: directory, bus: bus, manager: manager, daemon: daemon, apps: apps,
            control: ControlClient(executable: control, environment: appEnvironment), mark: mark,
            appEnvironment: appEnvironment, unitsBefore: unitsBefore
        )

        RunReport.step("plugin", "\(plugin), installed as \(installed)")
        RunReport.detail("run directory: \(directory.path) (\(keep ? "kept" : "removed at the end; --keep keeps it"))")
        RunReport.detail("restored: \(restored)\(settings.sandbox ? ", as a transient service of your user manager, sandboxed" : ", a child of this program (no sandbox; --sandbox applies the unit's)")")
        RunReport.detail("session bus: a private one, \(bus.address)")
        RunReport.detail("user manager: \(manager.map { "on \($0.busAddress) (RESTORED_LAUNCH_BUS)" } ?? "none answers: apps are started by this program, and a plugin's launches fall back to detached starts")")
        if case .sandboxed(_, let properties) = mode {
            RunReport.step("sandbox", "\(properties.assignments.count) properties of \(properties.source), applied with systemd-run:")
            for assignment in properties.assignments { RunReport.detail(assignment) }
            if properties.assignments.isEmpty { RunReport.warning("the unit has none of \(SandboxProperties.names.joined(separator: ", ")): restored runs unconfined") }
        }
    }

    private func startApps() async throws(PluginTestError) {
        guard let context else { return }
        for command in settings.starts {
            let place = try await context.apps.start(command)
            RunReport.step("app", "'\(command.text)' started: \(place)")
        }
    }

    private func firstStart() async throws(PluginTestError) {
        guard var context else { return }
        let pid = try await context.daemon.start(log: context.directory.daemonLog(1), budget: startBudget)
        context.daemonPID = pid
        let plugins = try await context.control.plugins()
        let installedName = ProgramName.of(settings.plugin)
        guard let plugin = plugins.first(where: { ProgramName.of($0.file) == installedName }) ?? plugins.first else {
            throw .pluginNotLoaded(reason: "restored found no plugin in \(context.directory.plugins); does the file end in .so?")
        }
        guard plugin.state == "loaded", let appID = plugin.app else {
            throw .pluginNotLoaded(reason: plugin.reason ?? "it is \(plugin.state)")
        }
        if let expected = settings.appID, expected != appID { throw .otherApp(expected: expected, found: appID) }
        context.appID = appID
        context.markLeft = context.mark.exists
        self.context = context
        RunReport.step("start", "restored is up (pid \(pid), log \(context.directory.daemonLog(1))); the plugin serves \(appID)")
        if let note = plugin.reason { RunReport.detail("plugin: \(note)") }
        if let last = try await context.control.app(appID)?.last, last.action == "restore" {
            RunReport.detail("its start's restore (\(last.trigger)): \(last.outcome)\(last.detail.isEmpty ? "" : ": \(last.detail)")")
        }
    }

    private func save() async throws(PluginTestError) {
        guard var context else { return }
        let appID = context.appID
        let began = ContinuousClock.now
        let deadline = began + .seconds(settings.walkTimeout)
        var tries = 0
        var last: ControlClient.LastResult?
        var record: ControlClient.App?
        repeat {
            if tries > 0 { try? await Task.sleep(for: .milliseconds(500)) }
            tries += 1
            let run = try await context.control.run(["save", appID], timeout: .seconds(settings.walkTimeout + 10))
            record = try await context.control.app(appID)
            last = record?.last.flatMap { $0.action == "save" ? $0 : nil }
            guard last != nil else {
                throw .controlFailed(command: "restored-ctl save \(appID)", message: run.errorText.isEmpty ? "no save was recorded (\(run.ending))" : run.errorText)
            }
            // The apps of --start may not be up yet: a save that found
            // nothing to ask is tried again until the walk timeout.
        } while ["declined", "kept"].contains(last?.outcome ?? "") && !context.apps.isEmpty && ContinuousClock.now < deadline
        guard let last, let record else { return }
        let tried = tries > 1 ? " (after \(tries) tries in \(Self.seconds(ContinuousClock.now - began)))" : ""
        switch last.outcome {
        case "saved", "partial":
            let generation = record.generation ?? 0
            context.savedGeneration = generation
            self.context = context
            let outline = try? await context.control.outline(of: appID)
            let objects = outline?.objects ?? []
            RunReport.step("save", "\(last.outcome) (\(last.trigger)), generation \(generation), \(objects.count) object\(objects.count == 1 ? "" : "s")\(tried)")
            for object in objects.prefix(100) { RunReport.detail("\(object.path) (\(object.className))") }
            if objects.count > 100 { RunReport.detail("… and \(objects.count - 100) more (--keep, then restored-ctl show \(appID) --state-dir \(context.directory.state))") }
            for object in outline?.carriedOver ?? [] {
                RunReport.detail("carried over from the archive before: \(object.path)\(object.savedAt.map { " (saved \($0))" } ?? "")")
            }
            for object in last.objects { RunReport.warning("left out: \(object.path): \(object.reason)") }
            if last.outcome == "partial" {
                laterFailures.append((.save, "the save was partial: \(last.objects.count) object\(last.objects.count == 1 ? "" : "s") left out (see above); fix the plugin"))
            }
        case "declined":
            throw .saveWroteNothing(reason: "the plugin declined\(tried): it found no app to save; is the app running? (--start starts one) (restored: \(last.detail))")
        case "kept":
            throw .saveWroteNothing(reason: "the plugin answered keep-last-archive\(tried): its app was not there to ask; is it running and reachable? (restored: \(last.detail))")
        default:
            throw .saveWroteNothing(reason: "\(last.outcome)\(tried): \(last.detail)")
        }
    }

    private func endApp() async throws(PluginTestError) {
        guard let context else { return }
        let stopped = await context.daemon.stop()
        let archive = try await context.control.app(context.appID, stateDirectory: context.directory.state)
        guard let archive, archive.hasArchive else {
            throw .archiveLostAtStop(reason: "no archive is left after restored's stop: its save at the stop (trigger stop, while the session goes on) discarded it, as a decline does (R6), while the app still ran; the plugin must save a running app (see \(context.directory.daemonLog(1)))")
        }
        if let problem = archive.problem {
            throw .archiveLostAtStop(reason: "after restored's stop the archive is unusable: \(problem)")
        }
        let generation = archive.generation ?? 0
        RunReport.step("end", "restored stopped first, as at a logout")
        RunReport.detail(generation > context.savedGeneration
            ? "its save at the stop wrote generation \(generation)"
            : "its save at the stop kept generation \(generation)")
        if stopped != nil { RunReport.warning("restored's stop did not end cleanly: \(stopped ?? "")") }
        if !context.apps.isEmpty {
            let alive = await context.apps.end()
            RunReport.detail("the apps of --start were ended")
            for line in alive { RunReport.warning(line) }
        }
        if let end = settings.end {
            let run = try await runCommand(end, timeout: .seconds(settings.walkTimeout))
            if run.ending == .exited(0) {
                RunReport.detail("--end '\(end.text)': exited 0")
            } else {
                RunReport.warning("--end '\(end.text)' \(DaemonRunner.describe(run.ending))\(Self.said(run))")
            }
        }
    }

    private func restore() async throws(PluginTestError) {
        guard var context else { return }
        let appID = context.appID
        if context.markLeft {
            context.mark.remove()
        } else if context.mark.file != nil {
            RunReport.step("restore", "restored left no login mark at \(context.mark.file ?? ""): its second start may be a recovery, not a login")
        }
        let pid = try await context.daemon.start(log: context.directory.daemonLog(2), budget: startBudget)
        context.daemonPID = pid
        self.context = context
        // A login restore that outlives restored's start (10 s) goes on in the background.
        let deadline = ContinuousClock.now + .seconds(settings.walkTimeout)
        var record = try await context.control.app(appID)
        while record?.restoring == true && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(200))
            record = try await context.control.app(appID)
        }
        var last = record?.last
        var how = "at restored's start"
        if last?.action != "restore" || last?.outcome != "restored" {
            if let last, last.action == "restore", !["live", "kept", "skipped"].contains(last.outcome) {
                throw .restoreFailed(reason: "the restore at restored's start (\(last.trigger)): \(last.outcome): \(last.detail)")
            }
            let said = last.map { " (\($0.outcome): \($0.detail))" } ?? ""
            RunReport.step("restore", "restored's start did not restore the app\(said); asking: restored-ctl restore \(appID)")
            let run = try await context.control.run(["restore", appID], timeout: .seconds(settings.walkTimeout + 10))
            last = try await context.control.app(appID)?.last
            how = "by restored-ctl restore"
            if last?.action != "restore" {
                throw .restoreFailed(reason: "restored-ctl restore \(appID): \(run.errorText.isEmpty ? "no restore was recorded" : run.errorText)")
            }
        }
        guard let last, last.outcome == "restored" else {
            throw .restoreFailed(reason: "the restore \(how): \(last?.outcome ?? "none"): \(last?.detail ?? "")")
        }
        let total = (try? await context.control.outline(of: appID))?.objects.count
        let restoredCount = total.map { "\(max(0, $0 - last.objects.count)) of \($0) objects restored" } ?? "restored"
        RunReport.step("restore", "restored (\(last.trigger), \(how)), \(restoredCount) (log \(context.directory.daemonLog(2)))")
        for object in last.objects { RunReport.warning("not restored: \(object.path): \(object.reason)") }
    }

    private func check() async throws(PluginTestError) {
        guard let check = settings.check else { return }
        let began = ContinuousClock.now
        let deadline = began + .seconds(settings.walkTimeout)
        var tries = 0
        while true {
            tries += 1
            let left = max(.milliseconds(100), ContinuousClock.now.duration(to: deadline))
            let run = try await runCommand(check, timeout: left)
            if run.ending == .exited(0) {
                RunReport.step("check", "'\(check.text)' exited 0 (after \(tries) tr\(tries == 1 ? "y" : "ies") in \(Self.seconds(ContinuousClock.now - began)))")
                return
            }
            guard ContinuousClock.now < deadline else {
                throw .checkFailed(reason: "--check '\(check.text)' did not exit 0 within \(settings.walkTimeout) s (\(tries) tries); the last \(DaemonRunner.describe(run.ending))\(Self.said(run))")
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
    }

    private func reportSandbox() async {
        guard let context, let manager = context.manager else { return }
        let findings = await SandboxInheritance.inspect(
            manager: manager, unitsBefore: context.unitsBefore, daemonUnit: context.daemon.unit, daemonPID: context.daemonPID
        )
        let inherited = findings.filter(\.inherited)
        RunReport.step("sandbox", findings.isEmpty
            ? "the restore started no process in a unit of its own (\(SandboxInheritance.launchedUnits)) and left none in restored's"
            : "\(findings.count) process\(findings.count == 1 ? "" : "es") the restore started, \(inherited.count) under restored's sandbox")
        for finding in findings {
            if finding.inherited { RunReport.warning(finding.line) } else { RunReport.detail(finding.line) }
        }
    }

    /// Ends restored (a logout's stop), the apps, the bus; removes the run's
    /// directory unless kept, and says where the logs are when it is.
    private func finish() async {
        if let context { _ = await context.daemon.stop() }
        let cleanup = self.cleanup
        await OffPool.run { cleanup.run() }
        if settings.keep, let context {
            let directory = context.directory
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".log") }.sorted()
            RunReport.step("kept", directory.path)
            RunReport.detail("logs: \(names.joined(separator: ", ")) (restored-1.log: the first start and the save; restored-2.log: the restore)")
            RunReport.detail("archives: \(directory.state) (restored-ctl show \(context.appID.isEmpty ? "APP" : context.appID) --state-dir \(directory.state))")
        }
    }

    // MARK: Helpers

    /// How long a start of restored may take: its plugins' start and its
    /// login restore (at most the walk timeout), with room for a slow machine.
    private var startBudget: Duration { .seconds(settings.walkTimeout + 15) }

    /// Runs `command` (no shell) to its end with the apps' environment.
    private func runCommand(_ command: CommandWords, timeout: Duration) async throws(PluginTestError) -> ProgramRun {
        let environment = context?.appEnvironment ?? self.environment
        let executable = try command.executable(searchPath: ExecutableSearchPath.of(environment))
        return try await ProgramRun.runOffPool(executable, command.words, environment: environment, timeout: timeout)
    }

    /// `: <the last line it printed>`, or nothing.
    private static func said(_ run: ProgramRun) -> String {
        let text = run.errorText.isEmpty ? run.outputText.trimmingCharacters(in: .whitespacesAndNewlines) : run.errorText
        guard let line = text.split(separator: "\n").last else { return "" }
        return ": \(line)"
    }

    /// `1.2 s`.
    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "\(seconds).\(attoseconds / 100_000_000_000_000_000) s"
    }

    /// The plugin as named (absolute) and the file it is (through
    /// symlinks), once that is a regular file and the name ends in `.so`.
    private static func checkedPlugin(_ path: String) throws(PluginTestError) -> (named: String, file: String) {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        guard let resolved = realpath(absolute, nil) else {
            throw .unusablePluginFile(path: path, reason: "\(String(cString: strerror(errno))); name the plugin's shared object (lib<Name>.so)")
        }
        let file = String(cString: resolved)
        free(resolved)
        var info = stat()
        guard stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .unusablePluginFile(path: path, reason: "not a regular file; name the plugin's shared object (lib<Name>.so)")
        }
        guard absolute.hasSuffix(".so") else { throw .unusablePluginFile(path: path, reason: "restored loads only files whose names end in .so; rename it") }
        return (absolute, file)
    }

    /// restored: `named` when given, else beside this program, else in `PATH`.
    private static func restoredExecutable(named: String?, searchPath: String) throws(PluginTestError) -> String {
        if let named {
            let path = named.hasPrefix("/") ? named : FileManager.default.currentDirectoryPath + "/" + named
            guard access(path, X_OK) == 0 else { throw .missingProgram(name: path, remedy: "name restored's executable with --restored") }
            return path
        }
        return try program("restored", in: [ownDirectory()], searchPath: searchPath, remedy: "install restored (scripts/install), or name it with --restored")
    }

    /// `name` in the first of `directories` that has it, else in `searchPath`.
    private static func program(_ name: String, in directories: [String], searchPath: String, remedy: String) throws(PluginTestError) -> String {
        for directory in directories where access(directory + "/" + name, X_OK) == 0 { return directory + "/" + name }
        guard let found = ExecutableSearchPath.executable(named: name, in: searchPath) else { throw .missingProgram(name: name, remedy: remedy) }
        return found
    }

    /// The directory of this program (`/proc/self/exe`).
    private static func ownDirectory() -> String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return String(executable[..<(executable.lastIndex(of: "/") ?? executable.startIndex)])
    }
}
