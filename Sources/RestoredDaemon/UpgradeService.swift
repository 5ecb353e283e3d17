import FoundationEssentials
import Glibc
import Logging
import ProcessSpawning
import RestoredEngine
import ServiceLifecycle
import SystemPackage
import SystemSupport

/// Restarts restored into the version an upgrade installed while it runs.
///
/// An upgrade (the package, `scripts/install`) replaces restored's
/// executable, its plugin host and its plugins while the old daemon runs.
/// Once the executable is replaced (``ExecutableReplacementWatch``; where
/// inotify cannot watch it, a look at the file once a minute), or a plugin
/// host of another version starts (the host protocol's version exchange:
/// ``UpgradeSignal``) and the executable on disk is of another version
/// too, restored says both versions and waits for a
/// moment no save or restore runs and the desktop is not ending
/// (``QuietMoment``, nudged as each save or restore ends, as a save round
/// ends and as the desktop's phase changes); then this
/// job ends, which ends the daemon's jobs: restored saves every app, as at
/// any stop, and exits with ``restartStatus``, which its unit's
/// `Restart=on-failure` answers by starting the new version (a recovery:
/// the apps are live). Until then a plugin whose file changed is started
/// from the new files at its next walk, the stop's save among them: a new
/// host of the same protocol serves; one that does not speak the old
/// daemon's protocol leaves the running host of the old build serving, and
/// where none runs that app's save fails with its archive kept (the apps
/// are live, and the new daemon saves them). Run outside its
/// unit (by hand, or in another service's cgroup), it says to restart it
/// and goes on.
struct UpgradeService: Service {
    /// The exit status of a stop for an upgrade's restart (EX_TEMPFAIL).
    static let restartStatus: Int32 = 75

    let logger: Logger
    /// Whether restored runs as its unit, `restored.service`, which restarts it.
    let underServiceManager: Bool

    /// Whether this process runs as `restored.service` of a service
    /// manager: `INVOCATION_ID` (which every child of any service
    /// inherits) and its own cgroup named so.
    static func runsAsUnit(environment: [String: String], cgroupFile: String = "/proc/self/cgroup") -> Bool {
        guard environment["INVOCATION_ID"] != nil, let file = fopen(cgroupFile, "r") else { return false }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.trimmingWhitespace().hasSuffix("/restored.service") { return true }
        }
        return false
    }
    /// Whether no save or restore runs and the desktop is not ending.
    let isQuiet: @Sendable () -> Bool
    /// Nudged at each change that may make restored quiet.
    let quiet: QuietMoment
    /// Marks the daemon's end as the upgrade's restart.
    let restart: @Sendable () -> Void
    /// What else says an upgrade happened: plugin hosts of another version.
    let signal: UpgradeSignal
    /// restored's executable as it was at its start; nil when it could not be read.
    let executable: RunningExecutable?

    /// How often restored looks at its executable where inotify cannot
    /// watch it: as often as the default autosave.
    static let lookInterval = Duration.seconds(60)

    func run() async throws {
        let logger = logger
        let signal = signal
        var watch: ExecutableReplacementWatch?
        var look: Task<Void, Never>?
        if let executable {
            var problem = ""
            watch = ExecutableReplacementWatch(executable, problem: { problem = $0 }, replaced: { signal.raise(.executableReplaced) })
            if watch == nil {
                logger.warning("\(problem); restored looks at \(executable.path) once a minute instead, and when a plugin host of another version starts; raise fs.inotify.max_user_instances if it is used up")
                look = Task {
                    while (try? await Task.sleep(for: Self.lookInterval)) != nil {
                        if executable.isReplaced {
                            signal.raise(.executableReplaced)
                            return
                        }
                    }
                }
            }
        } else {
            logger.warning("cannot find restored's own executable (/proc/self/exe); an upgrade takes effect at the next login or restart")
        }
        defer {
            watch?.stop()
            look?.cancel()
        }
        var said: Set<String> = []
        for await cause in signal.causes.cancelOnGracefulShutdown() {
            let change: String
            switch cause {
            case .executableReplaced:
                guard let path = executable?.path else { continue }
                let installed = await Self.version(of: path)
                change = "restored \(RestoredVersion.string) was replaced on disk by \(installed.map { "restored \($0)" } ?? "a restored that does not say its version")"
            case .pluginHostMismatch(let what):
                // A restart helps only if restored itself is new on disk:
                // otherwise the next restored meets the same host (a host
                // replaced first, a mixed installation) and would restart
                // for ever. The executable's own replacement restarts it.
                let path = executable?.path
                guard let path, let installed = try? RuntimeRecord(readingNotesOf: FilePath(path)), installed != .current else {
                    if said.insert(what).inserted {
                        logger.warning("a plugin host of another restored started (\(what)), while restored itself is not replaced on disk: it restarts once it is; if no upgrade runs, restored's files are of two versions (restored-ctl doctor)")
                    }
                    continue
                }
                change = "a plugin host of another restored started (\(what)), and restored \(installed.version ?? "of another build") is on disk"
            }
            guard underServiceManager else {
                // A host of another version is seen at every walk: said once.
                if case .pluginHostMismatch = cause, !said.insert(change).inserted { continue }
                logger.notice("\(change); restart restored to run the new version")
                continue
            }
            logger.notice("\(change): restored restarts to run it once no save runs")
            guard await quiet.wait(until: isQuiet) else { return }
            restart()
            return
        }
    }

    /// What `executable --version` says, within 30 s (a loaded login is
    /// slow to start a program); nil when it says nothing.
    static func version(of executable: String) async -> String? {
        await OffPool.run {
            let run = try? ProgramRun.run(executable, arguments: [executable, "--version"], environment: ["LANG": "C"], timeout: .seconds(30))
            let text = run?.outputText.trimmingWhitespace() ?? ""
            return text.isEmpty ? nil : text
        }
    }
}
