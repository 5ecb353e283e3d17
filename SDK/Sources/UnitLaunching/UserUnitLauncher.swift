import Glibc
public import RestoredDBus
import SystemPackage
import ProcessSpawning
import SystemSupport

/// Starts programs for the user outside restored's sandbox.
///
/// restored runs under a seccomp filter, `NoNewPrivileges` and
/// `MemoryDenyWriteExecute` in a cgroup of its own, and every process it
/// forks keeps all of that, even when moved to another cgroup. So a program
/// restored brings back (a tmux server, an app) is started by the user's
/// service manager: a transient service through `org.freedesktop.systemd1`
/// on the session bus (`StartTransientUnit`, `Type=exec`, or `forking` for
/// a program that starts a daemon and exits, in `app.slice`,
/// collected once it ends), which is what `systemd-run --user` does. The
/// launch is done when the manager's job is: the program was executed
/// (`exec`), or its start command exited, leaving its daemon (`forking`).
///
/// When no user manager answers (no systemd, a bare session), the program
/// is started detached by this process (a new session, standard streams on
/// `/dev/null`, no inherited descriptor, reparented away); it then keeps
/// restored's sandbox and cgroup, and ends with them at logout.
public struct UserUnitLauncher: Sendable {
    /// The user manager's bus name.
    public static let managerName = "org.freedesktop.systemd1"
    /// Its manager object.
    public static let managerPath = "/org/freedesktop/systemd1"
    /// Its manager interface.
    public static let managerInterface = "org.freedesktop.systemd1.Manager"

    /// The variable naming the bus on which plugins find the user manager
    /// (a D-Bus address), for a restored that runs on a bus of its own
    /// (`restored-plugin-test`); unset, the session bus. When it is set,
    /// a launched unit gets the launcher's own `DBUS_SESSION_BUS_ADDRESS`,
    /// so the app is on the bus its plugin sees.
    public static let launchBusVariable = "RESTORED_LAUNCH_BUS"

    /// A connection to the bus on which `environment`'s user manager is
    /// asked: `RESTORED_LAUNCH_BUS` when set, else the session bus; nil
    /// when it does not answer within `limit`.
    public static func connectToManagerBus(environment: [String: String], within limit: Duration) async -> DBusConnection? {
        if let address = environment[launchBusVariable], !address.isEmpty {
            return try? await DBusConnection.connect(to: .address(address), within: limit)
        }
        return try? await DBusConnection.connect(to: .session, within: limit)
    }

    private let connection: DBusConnection?
    private let environment: [String: String]
    private let budget: Duration

    /// A launcher using the user manager on `connection` (the session bus),
    /// or only detached starts with none; `environment` is the base of a
    /// detached start's and gives `PATH`. `budget` bounds each launch as a
    /// whole: every call to the manager and the wait for its job (a manager
    /// that never answers costs the budget, not libdbus's 25 seconds).
    public init(connection: DBusConnection?, environment: [String: String], budget: Duration = .seconds(20)) {
        self.connection = connection
        self.environment = environment
        self.budget = budget
    }

    /// Starts `request`; by the user manager when one answers.
    public func launch(_ request: LaunchRequest) async throws(LaunchError) -> LaunchResult {
        guard let name = request.command.first else { throw .noCommand(unit: request.unitName) }
        let path = try resolve(name, extraPath: request.environment["PATH"])
        if let connection, await connection.owner(of: Self.managerName) != nil {
            try await startUnit(request, executable: path, on: connection, deadline: .now + budget)
            return .unit(request.unitName)
        }
        return .detached(pid: try spawnDetached(request, executable: path))
    }

    /// The absolute path of `program`: itself when it has a `/`, else the
    /// first executable of that name in `PATH`.
    func resolve(_ program: String, extraPath: String?) throws(LaunchError) -> String {
        if program.contains("/") {
            guard program.hasPrefix("/"), access(program, X_OK) == 0 else {
                throw .notAnExecutable(program)
            }
            return program
        }
        let path = extraPath ?? ExecutableSearchPath.of(environment)
        if let found = ExecutableSearchPath.executable(named: program, in: path) { return found }
        throw .notInstalled(program: program, searchPath: path)
    }

    private func startUnit(_ request: LaunchRequest, executable: String, on connection: DBusConnection, deadline: ContinuousClock.Instant) async throws(LaunchError) {
        func left() -> Duration { max(.zero, ContinuousClock.now.duration(to: deadline)) }
        // The manager sends job signals only once a client subscribed. Its
        // answer is not needed, so it may take a part of the budget only.
        _ = try? await connection.call(
            destination: Self.managerName, path: Self.managerPath, interface: Self.managerInterface, member: "Subscribe",
            timeout: min(left() / 4, .seconds(2))
        )
        let jobs: AsyncStream<DBusMessage>
        do {
            jobs = try await connection.signals(matching: DBusMatchRule(
                sender: Self.managerName, path: Self.managerPath, interface: Self.managerInterface, member: "JobRemoved"
            ))
        } catch {
            throw .cannotFollowJobs(unit: request.unitName, error)
        }
        var properties: [(String, DBusValue)] = [
            ("Description", .string(request.description)),
            ("ExecStart", .array(elementSignature: "(sasb)", [.structure([.string(executable), .strings(request.command.map(Self.literalArgument)), .boolean(false)])])),
            ("Type", .string(request.serviceType.rawValue)),
            ("Slice", .string("app.slice")),
            ("CollectMode", .string("inactive-or-failed")),
        ]
        if let directory = request.workingDirectory {
            properties.append(("WorkingDirectory", .string(directory.string)))
        }
        var variables = request.environment
        // restored on a bus of its own (restored-plugin-test): the app
        // joins the bus its plugin sees, as it does in real use.
        if environment[Self.launchBusVariable]?.isEmpty == false, variables["DBUS_SESSION_BUS_ADDRESS"] == nil,
           let own = environment["DBUS_SESSION_BUS_ADDRESS"] {
            variables["DBUS_SESSION_BUS_ADDRESS"] = own
        }
        if !variables.isEmpty {
            properties.append(("Environment", .strings(variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })))
        }
        let reply: [DBusValue]
        do throws(DBusError) {
            reply = try await connection.call(
                destination: Self.managerName, path: Self.managerPath, interface: Self.managerInterface, member: "StartTransientUnit",
                arguments: [
                    .string(request.unitName), .string("fail"),
                    .array(elementSignature: "(sv)", properties.map { .structure([.string($0.0), .variant($0.1)]) }),
                    .array(elementSignature: "(sa(sv))", []),
                ],
                timeout: left()
            )
        } catch {
            throw .managerRefused(unit: request.unitName, error)
        }
        guard let job = reply.first?.stringValue else { throw .noJob(unit: request.unitName) }
        // JobRemoved(id, job, unit, result): "done" once the program was executed.
        let result = await jobs.first(within: left()) { signal -> String? in
            guard let arguments = try? signal.arguments(), arguments.count == 4, arguments[1].stringValue == job else { return nil }
            return arguments[3].stringValue ?? ""
        }
        switch result {
        case "done":
            return
        case nil:
            throw .jobUnfinished(unit: request.unitName, within: budget)
        case let result?:
            throw .jobFailed(unit: request.unitName, result: result)
        }
    }

    /// `argument` as an `ExecStart` argument that the manager passes as it
    /// is. systemd expands `$NAME` and `${NAME}` in every argument of
    /// `ExecStart`, also when set over D-Bus (a whole-word `$NAME` is even
    /// split into several arguments), so a file named `$HOME.txt` would
    /// reach the program as another name: each `$` is written `$$`, which
    /// systemd turns back into one. (`%` specifiers are expanded only in
    /// unit files, not in properties set over D-Bus.)
    public static func literalArgument(_ argument: String) -> String {
        guard argument.contains("$") else { return argument }
        var escaped = ""
        for character in argument {
            if character == "$" { escaped += "$$" } else { escaped.append(character) }
        }
        return escaped
    }

    private func spawnDetached(_ request: LaunchRequest, executable: String) throws(LaunchError) -> Int32 {
        let merged = environment.merging(request.environment) { _, new in new }
        let directory = request.workingDirectory?.string ?? environment["HOME"]
        do {
            return try DetachedProcess.start(
                FilePath(executable), arguments: request.command, environment: merged, directory: directory.map { FilePath($0) }
            )
        } catch {
            throw .cannotStartDetached(command: request.command.joined(separator: " "), error)
        }
    }
}
