public import DesktopEntries
import FoundationEssentials
public import RestoredDBus
public import UnitLaunching
import SavedText
import SystemPackage
import SystemSupport

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
    private let budget: Duration

    /// A launcher using the session bus `connection` (nil: only detached
    /// starts), with `environment` giving `PATH` and `HOME`; `budget`
    /// bounds each launch, every D-Bus call in it included.
    public init(connection: DBusConnection?, environment: [String: String], budget: Duration = .seconds(20)) {
        self.connection = connection
        self.environment = environment
        self.budget = budget
    }

    /// The well-known name and object path an entry's app owns on the
    /// session bus (`org.example.App.desktop`: `org.example.App`,
    /// `/org/example/App`; a `-` in the path becomes `_`).
    public static func busName(of entry: DesktopEntry) -> (name: String, path: String) {
        let name = entry.id.hasSuffix(".desktop") ? String(entry.id.dropLast(8)) : entry.id
        return (name, "/" + name.replacingEvery(".", with: "/").replacingEvery("-", with: "_"))
    }

    /// Starts `launch`.
    public func launch(_ launch: DesktopLaunch) async throws(LaunchError) -> DesktopLaunchResult {
        let entry = launch.entry
        if entry.dbusActivatable, launch.arguments == nil, let connection {
            return try await activate(launch, on: connection)
        }
        guard let exec = entry.exec else { throw .noExecNorBus(entry: entry.id) }
        let path = ExecutableSearchPath.of(environment)
        if let tryExec = entry.tryExec, ExecutableSearchPath.executable(named: tryExec, in: path) == nil, !FileManager.default.isExecutableFile(atPath: tryExec) {
            throw .tryExecMissing(entry: entry.id, program: tryExec)
        }
        let program = exec.program
        guard program.hasPrefix("/") ? FileManager.default.isExecutableFile(atPath: program) : ExecutableSearchPath.executable(named: program, in: path) != nil else {
            throw .entry(entry.id, .notInstalled(program: program, searchPath: path))
        }
        // %f and %F take paths; %u and %U take paths or URLs (the spec allows both).
        let items = launch.items.filter { Self.mayOpen($0, with: entry) }
        let files = exec.takesURLs ? items : items.filter { !$0.contains("://") }
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
        switch try await UserUnitLauncher(connection: connection, environment: environment, budget: budget).launch(request) {
        case .unit(let name): return .unit(name)
        case .detached(let pid): return .detached(pid: pid)
        }
    }

    /// The URL schemes an app is reopened with: those that name a
    /// document where it lives. Any other (`javascript:`, an app's own
    /// `x-scheme-handler` that acts on what the URL says) is not given
    /// back from an archive.
    public static let reopenedSchemes: Set<String> = ["file", "http", "https", "ftp", "ftps", "sftp", "smb", "dav", "davs", "nfs", "webdav", "webdavs"]

    /// Programs that run a file they are given instead of showing it
    /// (shells, interpreters, runtimes, openers that pick a program by the
    /// file): an entry whose `Exec` starts one is reopened without files.
    public static let programsRunningFiles: Set<String> = [
        "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "env", "python", "python2", "python3", "perl", "ruby",
        "node", "nodejs", "php", "lua", "tclsh", "wish", "java", "wine", "mono", "dotnet", "xdg-open", "gio", "exo-open", "kde-open", "kde-open5",
    ]

    /// Whether `item` (a file or URL from an archive: untrusted) may be
    /// given to `entry`'s app when it is reopened: a plain absolute path
    /// or a URL of ``reopenedSchemes`` that parses, with no control
    /// character and not an option, and never to a program that would run it
    /// (``programsRunningFiles``). The one rule, at the save and at the
    /// restore.
    public static func mayOpen(_ item: String, with entry: DesktopEntry) -> Bool {
        let program = entry.exec.map { ProgramName.of($0.program) } ?? ""
        guard !programsRunningFiles.contains(program), SavedText.isPrintable(item), !item.hasPrefix("-") else { return false }
        if item.hasPrefix("/") { return !item.contains("://") }
        guard let scheme = item.prefix(beforeFirst: "://"), reopenedSchemes.contains(scheme.lowercased()),
              let components = URLComponents(string: item), components.scheme?.lowercased() == scheme.lowercased()
        else { return false }
        return true
    }

    /// The option (`keep-url-queries = yes` in a plugin's section of
    /// restored.conf) that keeps a URL's query, credentials and fragment.
    public static let keepURLQueriesOption = "keep-url-queries"

    /// The form of `item` (a file or URL an app had open) an archive keeps:
    /// a URL's user, password, query and fragment, where sign-in tokens
    /// travel (`https://host/a.mp3?token=...`), are dropped unless
    /// `keepingQueries`; a path and a `file` URL are kept as they are.
    /// The one rule for every plugin that saves what an app had open.
    public static func keptForm(of item: String, keepingQueries: Bool) -> String {
        guard !keepingQueries, let scheme = item.prefix(beforeFirst: "://"), scheme.lowercased() != "file",
              var components = URLComponents(string: item)
        else { return item }
        guard components.user != nil || components.password != nil || components.query != nil || components.fragment != nil else { return item }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? item
    }

    private func activate(_ launch: DesktopLaunch, on connection: DBusConnection) async throws(LaunchError) -> DesktopLaunchResult {
        let (name, path) = Self.busName(of: launch.entry)
        let uris = launch.items.filter { Self.mayOpen($0, with: launch.entry) }.map { $0.contains("://") ? $0 : URL(fileURLWithPath: $0).absoluteString }
        let platformData = DBusValue.properties([])
        do {
            _ = try await connection.call(
                destination: name, path: path, interface: "org.freedesktop.Application",
                member: uris.isEmpty ? "Activate" : "Open",
                arguments: uris.isEmpty ? [platformData] : [.strings(uris), platformData], timeout: min(.seconds(5), budget))
        } catch {
            throw .activationFailed(entry: launch.entry.id, busName: name, error)
        }
        return .activated(busName: name)
    }

    private static func isDirectory(_ path: String) -> Bool {
        var isDirectory = false
        return path.hasPrefix("/") && FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory
    }
}
