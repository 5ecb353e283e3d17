public import RestorationKit
import RestoredDBus
public import SystemPackage
public import UnitLaunching
import FoundationEssentials
import PluginSupport
import SystemSupport

/// Starts an app as restored's own plugins do, from a plugin callback.
///
/// The app runs in a transient unit of the user's service manager
/// (`app-restored-APP@RANDOM.service` in `app.slice`), outside restored's
/// sandbox: no seccomp filter, no `NoNewPrivileges`, not in restored's
/// cgroup, so it outlives restored and is stopped at logout like the
/// user's own programs. Every argument reaches the program as it is given
/// (`$`, `%`, spaces and quotes included: nothing is expanded or split).
/// When no user manager answers (a session without systemd), the app is
/// started detached by the plugin's host (a new session, standard streams
/// on `/dev/null`, no inherited descriptor) and keeps restored's sandbox
/// and cgroup: each such start is a warning in the log.
///
/// The user manager is asked on the bus in `RESTORED_LAUNCH_BUS` when it is
/// set (``UserUnitLauncher/launchBusVariable``), else on the session bus.
/// One launcher keeps its connection for the plugin's life.
public final class AppLauncher {
    /// The app's id: it names the units (`app-restored-ID@RANDOM.service`).
    public let appID: String
    private let context: PluginContext?
    private let environment: [String: String]
    private var connection: DBusConnection?

    /// A launcher for `appID`'s programs, logging through `context` (nil:
    /// no log). `environment` is the base of a detached start's environment
    /// and gives the search path and the ``desktopVariables`` (nil: the
    /// host's).
    public init(appID: String, context: PluginContext?, environment: [String: String]? = nil) {
        self.appID = appID
        self.context = context
        self.environment = environment ?? ProcessInfo.processInfo.environment
    }

    deinit {
        connection?.close()
    }

    /// The desktop's variables this launcher hands to every app it starts
    /// (`DISPLAY`, `WAYLAND_DISPLAY`, `XAUTHORITY`, `XDG_CURRENT_DESKTOP`,
    /// `SWAYSOCK` ...): those of the plugin host's environment. restored
    /// gives a host these once the desktop is there, when its plugin
    /// declares ``PluginTraits/needsGraphicalSession``; the user manager's
    /// own environment lacks them on a desktop that never imports them
    /// (i3 from `.xinitrc`), so an app started without them would open no
    /// window. A launch's own `variables` win over them.
    public var desktopVariables: [String: String] {
        DesktopVariables.present(in: environment)
    }

    /// Starts `command` (the program, looked up in `PATH` unless it is a
    /// path, then its arguments, each kept literal) in `directory` (nil:
    /// the home directory) with `variables` set on top of the manager's
    /// environment, and returns once the manager ran it (`exec`) or its
    /// start command exited (`forking`), at most until `deadline`. Take the
    /// deadline from ``WalkTime/deadline(in:atMost:)``. `name` says what
    /// starts in the unit's description and the log (nil: the program).
    public func launch(
        _ command: [String], named name: String? = nil, in directory: FilePath? = nil, variables: [String: String] = [:],
        runs type: LaunchRequest.ServiceType = .exec, until deadline: ContinuousClock.Instant
    ) throws(LaunchError) -> LaunchedApp {
        let name = name ?? command.first ?? appID
        let request = LaunchRequest(
            unitName: UnitName.service(launcher: "restored", applicationID: appID),
            description: "\(name), restored by restored",
            command: command, workingDirectory: directory ?? environment["HOME"].map { FilePath($0) },
            environment: desktopVariables.merging(variables) { _, given in given }, serviceType: type
        )
        let began = ContinuousClock.now
        let connection = managerConnection(until: deadline)
        let environment = environment
        // Every call inside ends by the deadline; the grace lets the task
        // hand over what it finished at the very end.
        let started = try Blocking.run(until: deadline + Self.grace) { () async throws(LaunchError) -> LaunchedApp in
            let budget = max(.zero, ContinuousClock.now.duration(to: deadline))
            let result = try await UserUnitLauncher(connection: connection, environment: environment, budget: budget).launch(request)
            switch result {
            case .detached(let pid):
                return LaunchedApp(result: result, pid: pid)
            case .unit(let name):
                return LaunchedApp(result: result, pid: await Self.mainPID(of: name, on: connection, until: deadline))
            }
        }
        guard let started else {
            throw .notStartedInBudget(what: name, budget: max(.zero, began.duration(to: deadline)))
        }
        if !started.isOutsideSandbox {
            context?.log("no user manager answers: \(name) was started by restored and keeps its sandbox (it ends with restored)", level: .warning)
        }
        return started
    }

    /// How long past a launch's deadline its result is still taken.
    static let grace: Duration = .milliseconds(250)

    /// The connection to the user manager's bus, made at the first launch
    /// that reaches the bus and kept; nil when no bus answers in time (this
    /// launch is then detached, and the next one tries again).
    private func managerConnection(until deadline: ContinuousClock.Instant) -> DBusConnection? {
        if let connection { return connection }
        let environment = environment
        // A bus the manager socket-activates may take seconds to answer its
        // first client at a busy login: up to half the launch's time.
        let limit = min(.seconds(5), max(.zero, ContinuousClock.now.duration(to: deadline)) / 2)
        guard limit > .zero else { return nil }
        // connectToManagerBus gives up by the limit and closes a connection
        // that arrives later itself.
        connection = Blocking.run(until: .now + limit + Self.grace) { () async -> DBusConnection? in
            await UserUnitLauncher.connectToManagerBus(environment: environment, within: limit)
        } ?? nil
        return connection
    }

    /// The unit's main process, as the manager says (`MainPID`).
    private static func mainPID(of unit: String, on connection: DBusConnection?, until deadline: ContinuousClock.Instant) async -> Int32? {
        guard let connection else { return nil }
        func left() -> Duration { max(.milliseconds(1), ContinuousClock.now.duration(to: deadline)) }
        guard let path = try? await connection.call(
            destination: UserUnitLauncher.managerName, path: UserUnitLauncher.managerPath, interface: UserUnitLauncher.managerInterface,
            member: "GetUnit", arguments: [.string(unit)], timeout: left()
        ).first?.stringValue,
            let reply = try? await connection.call(
                destination: UserUnitLauncher.managerName, path: path, interface: "org.freedesktop.DBus.Properties",
                member: "Get", arguments: [.string("org.freedesktop.systemd1.Service"), .string("MainPID")], timeout: left()
            ).first
        else { return nil }
        guard case .variant(.uint32(let pid)) = reply, pid > 0 else { return nil }
        return Int32(exactly: pid)
    }
}
