import Foundation
import Glibc
import ProcessSpawning
import RestoredDBus
import RestoredTesting
import SystemSupport

/// The caller's systemd user manager, reached the way `systemctl --user`
/// reaches it (the caller's environment), and asked for with `systemctl`
/// and `systemd-run`: the transient units of `--start` and `--sandbox`, the
/// units a restore started, and their processes.
struct UserManager: Sendable {
    /// The caller's own session bus (where the manager answers).
    let busAddress: String
    /// The caller's environment, for `systemctl` and `systemd-run`.
    let environment: [String: String]
    /// `systemctl`.
    let systemctl: String
    /// `systemd-run`.
    let systemdRun: String

    /// The caller's session bus: `DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus` when that socket exists (what libdbus and
    /// sd-bus do without the variable); nil without either.
    static func callerBus(environment: [String: String]) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        guard let runtime = XDGBaseDirectories(environment: environment).runtimeDirectory else { return nil }
        var info = stat()
        guard stat(runtime + "/bus", &info) == 0, info.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return "unix:path=\(runtime)/bus"
    }

    /// The manager when one answers on `bus` within two seconds
    /// (`org.freedesktop.systemd1` has an owner) and `systemctl` and
    /// `systemd-run` are installed; nil otherwise.
    static func find(bus: String?, environment: [String: String]) async -> UserManager? {
        guard let bus else { return nil }
        let path = ExecutableSearchPath.of(environment) + ":/usr/bin:/bin"
        guard let systemctl = ExecutableSearchPath.executable(named: "systemctl", in: path),
              let systemdRun = ExecutableSearchPath.executable(named: "systemd-run", in: path),
              let connection = try? await DBusConnection.connect(to: .address(bus), within: .seconds(2))
        else { return nil }
        defer { connection.close() }
        guard await connection.owner(of: "org.freedesktop.systemd1") != nil else { return nil }
        var clientEnvironment = environment
        clientEnvironment["DBUS_SESSION_BUS_ADDRESS"] = bus
        return UserManager(busAddress: bus, environment: clientEnvironment, systemctl: systemctl, systemdRun: systemdRun)
    }

    /// Runs `systemctl --user ARGUMENTS`, at most `timeout`.
    func control(_ arguments: [String], timeout: Duration = .seconds(10)) async throws(PluginTestError) -> ProgramRun {
        try await ProgramRun.runOffPool(systemctl, ["systemctl", "--user"] + arguments, environment: environment, timeout: timeout)
    }

    /// Runs `systemd-run --user ARGUMENTS`; throws its complaint when it fails.
    func startTransient(_ arguments: [String], timeout: Duration = .seconds(20)) async throws(PluginTestError) {
        let run = try await ProgramRun.runOffPool(systemdRun, ["systemd-run", "--user", "--quiet"] + arguments, environment: environment, timeout: timeout)
        guard run.ending == .exited(0) else {
            throw .cannotRun(command: "systemd-run --user", reason: run.errorText.isEmpty ? "\(run.ending)" : run.errorText)
        }
    }

    /// One property of `unit` (`systemctl --user show -p NAME --value`), or nil.
    func property(_ name: String, of unit: String) async -> String? {
        guard let run = try? await control(["show", "-p", name, "--value", unit]), run.ending == .exited(0) else { return nil }
        let value = run.outputText.trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    /// The names of the manager's units matching `pattern`, loaded or not running.
    func units(matching pattern: String) async -> [String] {
        guard let run = try? await control(["list-units", "--all", "--plain", "--no-legend", "--full", pattern]) else { return [] }
        return run.outputText.split(separator: "\n").compactMap { line in
            line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
        }
    }

    /// The processes in `unit`'s cgroup and the cgroups under it.
    func processes(of unit: String) async -> [Int32] {
        guard let group = await property("ControlGroup", of: unit) else { return [] }
        return ControlGroup.processes(of: group)
    }

    /// A name for a transient unit: `PREFIX-<8 hex digits>.service`.
    static func unitName(prefix: String) -> String {
        "\(prefix)-\(String(UInt32.random(in: .min ... .max), radix: 16)).service"
    }

    /// `argument` as an `ExecStart` argument the manager passes as it is:
    /// systemd expands `$NAME` in every argument of `ExecStart`, also one
    /// set over D-Bus by `systemd-run`, so each `$` is written `$$`. (Not
    /// the program's path, which systemd-run looks up as it is and systemd
    /// does not expand.)
    static func literal(_ argument: String) -> String {
        argument.replacingOccurrences(of: "$", with: "$$")
    }

    /// `environment` as `--setenv=NAME=VALUE` arguments: only the variables
    /// systemd takes (a name of letters, digits and `_`; a value of valid
    /// text without control characters but tab), so one odd variable of
    /// the caller's (a shell's exported function) does not fail the start.
    static func setenvArguments(_ environment: [String: String]) -> [String] {
        environment.sorted { $0.key < $1.key }.compactMap { name, value in
            guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic),
                  name.unicodeScalars.allSatisfy({ $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0" ... "9").contains($0))) }),
                  !value.unicodeScalars.contains(where: { $0 != "\t" && ($0.value < 0x20 || $0.value == 0x7F) })
            else { return nil }
            return "--setenv=\(name)=\(value)"
        }
    }
}
