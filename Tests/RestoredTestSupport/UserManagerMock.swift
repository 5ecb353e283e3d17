import Foundation
public import RestoredDBus

/// The user's service manager (`org.freedesktop.systemd1` on the session
/// bus), played by python3-dbusmock's `systemd` template: PID 1 here is not
/// systemd. The template records `StartTransientUnit` but starts nothing, so
/// the test extends it to do what the manager does: start the unit's
/// `ExecStart` in its `WorkingDirectory` with its `Environment` (its
/// arguments' `$` expanded as systemd expands them), in a
/// process of the mock (outside whatever sandbox the caller runs in) with
/// no signal blocked, as systemd starts services (the mock's own threads
/// block some, and a daemon that inherits that never ends), then
/// announce the job's end (`JobRemoved`, "done", or "failed" when the
/// program cannot be executed). Every process it started is killed, by pid,
/// when the mock goes.
public final class UserManagerMock {
    /// The manager's bus name.
    public static let name = "org.freedesktop.systemd1"
    /// Its manager object.
    public static let path = "/org/freedesktop/systemd1"
    /// Its manager interface.
    public static let interface = "org.freedesktop.systemd1.Manager"

    /// One `StartTransientUnit` call.
    public struct TransientUnit: Sendable {
        /// The unit's name.
        public var name: String
        /// Its properties.
        public var properties: [String: DBusValue]

        /// `ExecStart`'s first command line.
        public var command: [String] {
            guard case .array(_, let commands)? = properties["ExecStart"], case .structure(let fields)? = commands.first,
                  fields.count == 3, let arguments = fields[1].arrayValue
            else { return [] }
            return arguments.compactMap(\.stringValue)
        }

        /// `ExecStart`'s program path.
        public var executable: String? {
            guard case .array(_, let commands)? = properties["ExecStart"], case .structure(let fields)? = commands.first else { return nil }
            return fields.first?.stringValue
        }

        /// `Environment` as a dictionary.
        public var environment: [String: String] {
            let entries = properties["Environment"]?.arrayValue?.compactMap(\.stringValue) ?? []
            return Dictionary(entries.map { entry in
                let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }, uniquingKeysWith: { _, last in last })
        }
    }

    private let mock: DBusMock
    private let spawnedFile: String

    /// Starts the mock on `bus`; `environment` is added to the manager's
    /// own, which the programs it starts get.
    public static func start(on bus: PrivateBus, environment: [String: String] = [:]) async throws -> UserManagerMock {
        let spawnedFile = bus.directory.appendingPathComponent("user-manager-spawned").path
        _ = FileManager.default.createFile(atPath: spawnedFile, contents: nil)
        let mock = try await DBusMock.start(
            name: name, arguments: ["--session", "--template", "systemd"], on: bus, log: "user-manager-mock.log",
            environment: environment.merging(["RESTORED_TEST_SPAWNED": spawnedFile]) { _, new in new }
        )
        try await mock.addMethod(path: path, interface: interface, name: "Subscribe", input: "", output: "", code: "pass")
        try await mock.addMethod(path: path, interface: interface, name: "StartTransientUnit", input: "ssa(sv)a(sa(sv))", output: "o", code: startTransientUnit)
        return UserManagerMock(mock: mock, spawnedFile: spawnedFile)
    }

    private init(mock: DBusMock, spawnedFile: String) {
        self.mock = mock
        self.spawnedFile = spawnedFile
    }

    deinit {
        for pid in spawnedPIDs { kill(pid, SIGKILL) }
    }

    /// Stops the mock: no user manager answers any more.
    public func stop() {
        mock.stop()
    }

    /// Every transient unit asked for, oldest first.
    public func transientUnits() async throws -> [TransientUnit] {
        try await mock.calls(path: Self.path, method: "StartTransientUnit").map { arguments in
            let properties = (arguments.count > 2 ? arguments[2].arrayValue ?? [] : []).compactMap { entry -> (String, DBusValue)? in
                guard case .structure(let fields) = entry, fields.count == 2, let key = fields[0].stringValue else { return nil }
                return (key, fields[1].unwrapped)
            }
            return TransientUnit(name: arguments.first?.stringValue ?? "", properties: Dictionary(properties, uniquingKeysWith: { _, last in last }))
        }
    }

    /// The pid the mock started each unit's program with, by unit name.
    public var spawned: [String: Int32] {
        let lines = ((try? String(contentsOfFile: spawnedFile, encoding: .utf8)) ?? "").split(separator: "\n")
        return Dictionary(lines.compactMap { line -> (String, Int32)? in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let pid = Int32(parts[1]) else { return nil }
            return (String(parts[0]), pid)
        }, uniquingKeysWith: { _, last in last })
    }

    private var spawnedPIDs: [Int32] { Array(spawned.values) }

    /// The manager's side of `StartTransientUnit`, in the mock's Python.
    private static let startTransientUnit = """
        import os, signal, subprocess
        from gi.repository import GLib
        properties = {str(key): value for key, value in args[2]}
        commands = properties.get('ExecStart', [])
        environment = dict(os.environ)
        environment.pop('RESTORED_TEST_SPAWNED', None)
        for entry in properties.get('Environment', []):
            key, _, value = str(entry).partition('=')
            environment[key] = value
        directory = str(properties.get('WorkingDirectory', environment.get('HOME', '/')))
        job_id = self.next_job_id
        self.next_job_id += 1
        job = '/org/freedesktop/systemd1/job/%d' % job_id
        result = 'failed'
        # As systemd reads ExecStart's arguments: "$$" is "$", "${NAME}" the
        # variable's value, and a whole-word "$NAME" its value split into words.
        import re
        def expand(argument, environment=environment, re=re):
            if re.fullmatch(r'\\$[A-Za-z_][A-Za-z0-9_]*', argument):
                return environment.get(argument[1:], '').split()
            return [re.sub(r'\\$\\$|\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}', lambda m: '$' if m.group(0) == '$$' else environment.get(m.group(1), ''), argument)]
        argv = []
        for a in (commands[0][1] if commands else []):
            argv += expand(str(a))
        if commands:
            try:
                process = subprocess.Popen(argv, executable=str(commands[0][0]), cwd=directory, env=environment,
                                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                                           preexec_fn=lambda signal=signal: signal.pthread_sigmask(signal.SIG_SETMASK, []))
                with open(os.environ['RESTORED_TEST_SPAWNED'], 'a') as spawned:
                    spawned.write('%s %d\\n' % (args[0], process.pid))
                result = 'done'
            except OSError:
                pass
        unit = str(args[0])
        # Names reach the lambda as defaults: code run by exec has no closures.
        GLib.idle_add(lambda s=self, i=job_id, j=job, u=unit, r=result: s.EmitSignal('org.freedesktop.systemd1.Manager', 'JobRemoved', 'uoss', [i, j, u, r]) and False)
        ret = job
        """
}
