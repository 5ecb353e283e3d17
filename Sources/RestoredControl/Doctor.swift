import Glibc
import Logging
import RestoredArchive
import RestoredDBus
import RestoredEngine
import RestoredHostProtocol
import RestoredPluginHosting
public import SystemPackage
import SystemSupport

/// The checks of `restored-ctl doctor`, each with a remedy.
public struct Doctor: Sendable {
    private let environment: [String: String]
    private let stateDirectory: FilePath?
    private let pluginDirectories: [FilePath]?
    private let pluginHost: FilePath

    /// A doctor for this environment; `stateDirectory` overrides where the
    /// archives are looked for, `pluginDirectories` where plugins are.
    ///
    /// The plugin directories checked are, in this order of choice: the ones
    /// given; those of the running restored (its `PluginDirectories`), whose
    /// plugins are reported as restored holds them (loaded, quarantined or
    /// refused); restored's default search path. Each plugin restored does
    /// not hold is tried in a helper process (`pluginHost`, by default the
    /// installed one) as restored runs it, never loaded into restored-ctl: a
    /// plugin that crashes while it loads is reported, not fatal. A refused
    /// plugin is a failed check.
    public init(environment: [String: String], stateDirectory: FilePath?, pluginDirectories: [FilePath]? = nil, pluginHost: FilePath? = nil) {
        self.environment = environment
        self.stateDirectory = stateDirectory
        self.pluginDirectories = pluginDirectories
        self.pluginHost = pluginHost ?? PluginHost.Configuration.installedExecutable()
    }

    /// Runs every check, in the order a user would fix them.
    public func run() async -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        if let installation = InstallationCheck().check() { checks.append(installation) }
        var status: DaemonStatus?
        var daemonPlugins: (directories: [FilePath], plugins: [PluginRecord])?
        let session = try? await DBusConnection.connect(to: .session)
        defer { session?.close() }
        if let session {
            checks.append(DoctorCheck("session bus", .ok, "reachable"))
            if await session.owner(of: DaemonClient.busName) != nil {
                let fields = try? await session.call(destination: DaemonClient.busName, path: DaemonClient.path, interface: DaemonClient.interface, member: "Status")
                status = fields?.first?.stringKeyedValue.map(DaemonStatus.init(daemonStatus:))
                let client = DaemonClient(connection: session)
                if pluginDirectories == nil, let directories = try? await client.pluginDirectories(), let plugins = try? await client.plugins() {
                    daemonPlugins = (directories.map { FilePath($0) }, plugins)
                }
                if let status {
                    checks.append(DoctorCheck("restored", .ok, "running (version \(status.version), \(status.state))"))
                } else {
                    checks.append(DoctorCheck("restored", .failed, "owns org.restored1 but does not answer Status", remedy: "restart it: systemctl --user restart restored"))
                }
            } else {
                checks.append(DoctorCheck("restored", .failed, "not running on the session bus", remedy: "start it: systemctl --user enable --now restored (see the README's \"Install\")"))
            }
            if await session.owner(of: "org.gnome.SessionManager") != nil {
                let registered = status?.sessionManager ?? false
                checks.append(registered
                    ? DoctorCheck("session manager", .ok, "org.gnome.SessionManager is there and restored is its client: logout waits for the save")
                    : DoctorCheck("session manager", .warning, "org.gnome.SessionManager is there but restored is not registered with it", remedy: "restart restored inside the session: systemctl --user restart restored"))
            } else {
                checks.append(DoctorCheck("session manager", .warning, "none on the session bus: logout is saved when systemd stops restored (SIGTERM)"))
            }
            if let extensionCheck = await GnomeShellExtensionCheck(environment: environment).check(on: session) {
                checks.append(extensionCheck)
            }
            if let scriptCheck = await KWinScriptCheck(environment: environment).check(on: session) {
                checks.append(scriptCheck)
            }
        } else {
            checks.append(DoctorCheck("session bus", .failed, "cannot be reached (DBUS_SESSION_BUS_ADDRESS is \(environment["DBUS_SESSION_BUS_ADDRESS"].map { "\"\($0)\"" } ?? "unset"))", remedy: "run restored-ctl inside your desktop session"))
        }
        checks.append(await logindCheck(status: status))
        checks += stateDirectoryChecks(status.map { FilePath($0.stateDirectory) })
        if let pluginDirectories {
            checks += await pluginChecks(in: pluginDirectories, heldBy: nil)
        } else if let daemonPlugins {
            checks += await pluginChecks(in: daemonPlugins.directories, heldBy: daemonPlugins.plugins)
        } else {
            checks += await pluginChecks(in: PluginLoader.searchPath(environment: environment), heldBy: nil)
        }
        return checks
    }

    private func logindCheck(status: DaemonStatus?) async -> DoctorCheck {
        guard let system = try? await DBusConnection.connect(to: .system) else {
            return DoctorCheck("logind", .failed, "the system bus cannot be reached: nothing is saved before suspend or shutdown", remedy: "check that dbus is running (systemctl status dbus)")
        }
        defer { system.close() }
        guard await system.owner(of: "org.freedesktop.login1") != nil else {
            return DoctorCheck("logind", .failed, "org.freedesktop.login1 is not on the system bus: nothing is saved before suspend or shutdown", remedy: "restored needs systemd-logind (or elogind) for suspend and shutdown")
        }
        let inhibitors = (try? await system.call(
            destination: "org.freedesktop.login1", path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager", member: "ListInhibitors"
        ))?.first?.arrayValue ?? []
        let ours = inhibitors.contains { entry in
            let fields = entry.structureValue ?? []
            return fields.count >= 4 && fields[1].stringValue == "restored" && fields[3].stringValue == "delay"
        }
        if ours || status?.lockHeld == true {
            return DoctorCheck("logind", .ok, "reachable; restored holds its delay lock for sleep and shutdown")
        }
        if status == nil {
            return DoctorCheck("logind", .warning, "reachable; whether restored would hold its delay lock shows once restored runs")
        }
        return DoctorCheck("logind", .failed, "reachable, but restored holds no delay lock: suspend and shutdown will not wait for saves",
                           remedy: "see why: journalctl --user -u restored")
    }

    private func stateDirectoryChecks(_ reported: FilePath?) -> [DoctorCheck] {
        let directory = stateDirectory ?? reported ?? ArchiveStore.defaultDirectory(environment: environment)
        var status = stat()
        guard lstat(directory.string, &status) == 0 else {
            return [DoctorCheck("state directory", .warning, "\(directory) does not exist yet; restored creates it at the first save")]
        }
        var problems: [String] = []
        func inspect(_ path: FilePath, _ status: stat, mode expected: mode_t) {
            if status.st_uid != getuid() { problems.append("\(path) belongs to uid \(status.st_uid), not to you (\(getuid()))") }
            if status.st_mode & 0o777 != expected {
                problems.append("\(path) has mode \(String(status.st_mode & 0o777, radix: 8)), not \(String(expected, radix: 8))")
            }
            if status.st_mode & S_IFMT == S_IFLNK { problems.append("\(path) is a symbolic link; restored refuses it") }
        }
        inspect(directory, status, mode: 0o700)
        if let appIDs = try? ArchiveStore(directory: directory).appIDs() {
            for appID in appIDs {
                let appDirectory = directory.appending(appID.rawValue)
                guard lstat(appDirectory.string, &status) == 0 else { continue }
                inspect(appDirectory, status, mode: 0o700)
                for file in ArchiveStore.Generation.allCases.map(\.fileName) {
                    let path = appDirectory.appending(file)
                    if lstat(path.string, &status) == 0 { inspect(path, status, mode: 0o600) }
                }
            }
        }
        guard problems.isEmpty else {
            return [DoctorCheck("state directory", .failed, problems.joined(separator: "; "),
                                remedy: "chown -R $USER \(directory) && chmod -R u=rwX,go= \(directory)")]
        }
        return [DoctorCheck("state directory", .ok, "\(directory): yours, private (0700 directories, 0600 files)")]
    }

    /// The checks of the plugin directories and of each plugin in them;
    /// with `held`, the running restored's plugins, reported as it holds
    /// them (the others are tried in a helper).
    private func pluginChecks(in directories: [FilePath], heldBy held: [PluginRecord]?) async -> [DoctorCheck] {
        let candidates = PluginLoader(directories: directories).candidates()
        let heldFiles = Dictionary((held ?? []).map { ($0.file, $0) }, uniquingKeysWith: { first, _ in first })
        let starts = await start(candidates.filter { $0.refusal == nil && heldFiles[$0.file.string] == nil }.map(\.file))
        var checks: [DoctorCheck] = []
        var loadedAnywhere = 0
        for directory in directories {
            var status = stat()
            guard stat(directory.string, &status) == 0 else {
                checks.append(DoctorCheck("plugin directory \(directory)", .ok, "absent (nothing to load here)"))
                continue
            }
            let here = candidates.filter { $0.file.removingLastComponent() == directory }
            var rows: [DoctorCheck] = []
            var loaded = 0
            for candidate in here {
                if let record = heldFiles[candidate.file.string] {
                    switch record.state {
                    case "loaded":
                        loaded += 1
                        let note = record.reason.map { "; \($0)" } ?? ""
                        rows.append(DoctorCheck("plugin \(candidate.file)", .ok, "loaded by restored; serves \(record.app ?? "?") (ABI \(record.abiVersion ?? 0))\(note)"))
                    case "quarantined":
                        rows.append(DoctorCheck("plugin \(candidate.file)", .failed, "quarantined by restored", remedy: record.reason))
                    default:
                        rows.append(DoctorCheck("plugin \(candidate.file)", .failed, "refused by restored", remedy: record.reason))
                    }
                    continue
                }
                if let refusal = candidate.refusal {
                    rows.append(DoctorCheck("plugin \(candidate.file)", .failed, "refused", remedy: refusal.description))
                    continue
                }
                switch starts[candidate.file] {
                case .success(let identity):
                    loaded += 1
                    if held != nil {
                        rows.append(DoctorCheck(
                            "plugin \(candidate.file)", .warning, "loads in its plugin host; serves \(identity.appID) (ABI \(identity.abiVersion)), but restored has not loaded it",
                            remedy: "load it now: restored-ctl reload"
                        ))
                    } else {
                        rows.append(DoctorCheck("plugin \(candidate.file)", .ok, "loads in its plugin host; serves \(identity.appID) (ABI \(identity.abiVersion))"))
                    }
                case .failure(.refused(let reason)):
                    rows.append(DoctorCheck("plugin \(candidate.file)", .failed, "refused", remedy: PluginRefusal(file: candidate.file, reason: reason).description))
                case .failure(.fault(let fault)):
                    rows.append(DoctorCheck(
                        "plugin \(candidate.file)", .failed, "cannot be loaded: \(fault)",
                        remedy: "fix or rebuild the plugin, or remove it; restored refuses it the same way"
                    ))
                case nil:
                    continue
                }
            }
            loadedAnywhere += loaded
            if status.st_mode & 0o022 != 0 {
                checks.append(DoctorCheck("plugin directory \(directory)", .failed, "others can write to it (mode \(String(status.st_mode & 0o777, radix: 8))); its plugins are refused", remedy: "chmod go-w \(directory)"))
            } else {
                checks.append(DoctorCheck("plugin directory \(directory)", .ok, "\(loaded) plugin\(loaded == 1 ? " loads" : "s load"), \(here.count - loaded) refused"))
            }
            checks += rows
        }
        // No plugin anywhere: restored saves and restores nothing.
        if loadedAnywhere == 0 {
            checks.insert(DoctorCheck(
                "plugins", .warning, "none loads from \(directories.map(\.string).joined(separator: ", ")): no app is saved or restored",
                remedy: "put an app's plugin (lib….so) in one of these directories and run restored-ctl reload, "
                    + "or start restored with the plugin's directory in RESTORED_PLUGIN_PATH (restored's own: scripts/install, or its package)"
            ), at: 0)
        }
        return checks
    }

    /// Starts a plugin host for each of `files`, as restored does, notes what
    /// each says and stops it. Spawning and waiting block: they run off the
    /// task pool.
    private func start(_ files: [FilePath]) async -> [FilePath: Result<PluginIdentity, PluginStartFailure>] {
        let quiet = Logger(label: "restored-ctl") { _ in SwiftLogNoOpLogHandler() }
        let configuration = PluginHost.Configuration(executable: pluginHost, environment: environment, logLevel: .critical)
        return await OffPool.run {
            var results: [FilePath: Result<PluginIdentity, PluginStartFailure>] = [:]
            for file in files {
                let host = PluginHost(file: file, configuration: configuration, logger: quiet)
                results[file] = host.start()
                host.stop()
            }
            return results
        }
    }
}
