public import DesktopEntries
import Foundation
public import RestoredDBus
public import RestoredLaunch
import SystemPackage

/// Starts apps from their desktop entries the way the Desktop Entry
/// Specification says, outside restored's sandbox:
///
/// - a `DBusActivatable` entry through `org.freedesktop.Application` on the
///   session bus: `Activate`, or `Open` with the files as `file://` URIs;
/// - any other by its `Exec`, expanded with the files as arguments (one
///   argument each, never read by a shell), in the directory it ran in,
///   as a transient service of the user manager named
///   `app-restored-<id>@<random>.service` (so the next save finds it by its
///   unit), or detached when no user manager answers (``UserUnitLauncher``);
///   with `GIO_LAUNCHED_DESKTOP_FILE` and `GIO_LAUNCHED_DESKTOP_FILE_PID`
///   set, the latter by `/bin/sh` to its own pid just before it `exec`s
///   the app (the constant script `export ...=$$; exec "$0" "$@"`, which
///   reads no saved text: the app and its arguments are its positional
///   parameters).
public struct DesktopAppLauncher: Sendable {
    private let connection: DBusConnection?
    private let environment: [String: String]

    /// A launcher using the session bus `connection` (nil: only detached
    /// starts), with `environment` giving `PATH` and `HOME`.
    public init(connection: DBusConnection?, environment: [String: String]) {
        self.connection = connection
        self.environment = environment
    }

    /// The well-known name and object path an entry's app owns on the
    /// session bus (`org.example.App.desktop`: `org.example.App`,
    /// `/org/example/App`; a `-` in the path becomes `_`).
    public static func busName(of entry: DesktopEntry) -> (name: String, path: String) {
        let name = entry.id.hasSuffix(".desktop") ? String(entry.id.dropLast(8)) : entry.id
        return (name, "/" + name.replacingOccurrences(of: ".", with: "/").replacingOccurrences(of: "-", with: "_"))
    }

    /// Starts `launch`.
    public func launch(_ launch: DesktopLaunch) async throws(LaunchError) -> DesktopLaunchResult {
        let entry = launch.entry
        if entry.dbusActivatable, launch.arguments == nil, let connection {
            return try await activate(launch, on: connection)
        }
        guard let exec = entry.exec else { throw LaunchError("\(entry.id) has no Exec and no session bus answers for its D-Bus activation") }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        if let tryExec = entry.tryExec, ProgramRun.executable(named: tryExec, in: path) == nil, !FileManager.default.isExecutableFile(atPath: tryExec) {
            throw LaunchError("\(entry.id): \(tryExec) (its TryExec) is not installed")
        }
        let program = exec.program
        guard program.hasPrefix("/") ? FileManager.default.isExecutableFile(atPath: program) : ProgramRun.executable(named: program, in: path) != nil else {
            throw LaunchError("\(entry.id): \(program) is not installed (not found in PATH=\(path))")
        }
        // %f and %F take paths; %u and %U take paths or URLs (the spec allows both).
        let files = exec.takesURLs ? launch.items : launch.items.filter { !$0.contains("://") }
        let arguments = launch.arguments.map { [program] + $0 } ?? exec.expanded(files: exec.takesSeveral ? files : Array(files.prefix(1)), entry: entry)
        let directory = [launch.directory, entry.workingDirectory].compactMap { $0 }.first { Self.isDirectory($0) }
        let applicationID = entry.id.hasSuffix(".desktop") ? String(entry.id.dropLast(8)) : entry.id
        let request = LaunchRequest(
            unitName: UnitName.service(launcher: "restored", applicationID: applicationID),
            description: "\(entry.name), reopened by restored",
            command: ["/bin/sh", "-c", "export GIO_LAUNCHED_DESKTOP_FILE_PID=$$; exec \"$0\" \"$@\""] + arguments,
            workingDirectory: directory.map { FilePath($0) },
            environment: ["GIO_LAUNCHED_DESKTOP_FILE": entry.path]
        )
        switch try await UserUnitLauncher(connection: connection, environment: environment).launch(request) {
        case .unit(let name): return .unit(name)
        case .detached(let pid): return .detached(pid: pid)
        }
    }

    private func activate(_ launch: DesktopLaunch, on connection: DBusConnection) async throws(LaunchError) -> DesktopLaunchResult {
        let (name, path) = Self.busName(of: launch.entry)
        let uris = launch.items.map { $0.contains("://") ? $0 : URL(fileURLWithPath: $0).absoluteString }
        let platformData = DBusValue.properties([])
        do {
            _ = try await connection.call(
                destination: name, path: path, interface: "org.freedesktop.Application",
                member: uris.isEmpty ? "Activate" : "Open",
                arguments: uris.isEmpty ? [platformData] : [.strings(uris), platformData], timeout: .seconds(5))
        } catch {
            throw LaunchError("\(launch.entry.id): D-Bus activation of \(name) failed: \(error.message)")
        }
        return .activated(busName: name)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return path.hasPrefix("/") && FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
