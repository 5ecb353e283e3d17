import Foundation
import Logging
import ProcessSpawning
import RestoredArchive
import RestoredEngine
import RestoredTestSupport
import SystemPackage
import SystemSupport

/// What the benchmarks of windows placed by a desktop's extension or script
/// (gnome-shell, kwin) share: the installed placers, the session plugin's
/// save and its restore walked on threads of their own, and the figures.
enum WindowRestoreTiming {
    /// Installs restored's GNOME Shell extension and KWin script under
    /// `share` with scripts/install-window-places (run from the checkout).
    static func installWindowPlaces(under share: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: "scripts/install-window-places") else {
            throw BenchmarkFailure("run it from restored's checkout: it installs the window placers with scripts/install-window-places")
        }
        let install = try await CompletedCommand.run(
            "/bin/bash", ["scripts/install-window-places", share], environment: ProcessInfo.processInfo.environment,
            in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        )
        guard install.status == 0 else { throw BenchmarkFailure("scripts/install-window-places: \(install.output)\(install.error)") }
    }

    /// The session plugin's save of the windows now (`launch-interval` 0).
    static func save(with plugin: LoadedPlugin, engine: RestorationEngine, logger: Logger) async throws -> Archive {
        // Off the pool: the plugin waits for its D-Bus calls on the thread that calls it.
        let saved = await OffPool.run { () -> Archive? in
            guard let saving = try? plugin.makeSession(options: ["launch-interval": "0"], logger: logger) else { return nil }
            return engine.makeArchive(of: saving).archive
        }
        guard let archive = saved else { throw BenchmarkFailure("the save kept nothing") }
        return archive
    }

    /// Starts the session plugin's restoration walk of `archive`, its
    /// session made within it; the task ends with the walk.
    static func restore(_ archive: Archive, with plugin: LoadedPlugin, engine: RestorationEngine, logger: Logger) -> Task<Void, Never> {
        Task {
            await OffPool.run {
                guard let restoring = try? plugin.makeSession(options: ["launch-interval": "0"], logger: logger) else { return }
                _ = engine.restore(restoring, from: archive)
            }
        }
    }

    /// The frame the user gave window `index`: left, top, width, height,
    /// each window at a place of its own.
    static func frame(ofWindow index: Int) -> [Int] {
        [40 + (index * 23) % 600, 60 + (index * 17) % 300, 480, 300]
    }

    /// Starts `program` detached once in each of `directories`, with the
    /// arguments `arguments` gives for it, all at once: a bare launch.
    static func launch(_ program: String, in directories: [String], environment: [String: String], arguments: (String) -> [String]) throws {
        for directory in directories {
            _ = try DetachedProcess.start(FilePath(program), arguments: arguments(directory), environment: environment, directory: FilePath(directory))
        }
    }

    /// `rounds` rounds of the comparison, each from no window: the bare
    /// launch (`launch`: starts the apps, returns when the last mapped),
    /// the user's session made (`arrange`: returns what the restore must
    /// show), the session plugin's save, every window closed, then the
    /// restore, timed until `placed` (given what `arrange` returned)
    /// returns the moment every window is back. Returns each round's two
    /// durations.
    static func measure<Expected: Sendable>(
        rounds: Int, plugin: LoadedPlugin, engine: RestorationEngine, logger: Logger,
        closeAll: () async throws -> Void, launch: () async throws -> ContinuousClock.Instant,
        arrange: () async throws -> Expected, placed: (Expected) async throws -> ContinuousClock.Instant
    ) async throws -> (bare: [Duration], restore: [Duration]) {
        var bare: [Duration] = []
        var restore: [Duration] = []
        for _ in 0 ..< rounds {
            try await closeAll()
            let bareStart = ContinuousClock.now
            bare.append(try await launch() - bareStart)
            let expected = try await arrange()
            let archive = try await save(with: plugin, engine: engine, logger: logger)
            try await closeAll()
            let start = ContinuousClock.now
            let walk = WindowRestoreTiming.restore(archive, with: plugin, engine: engine, logger: logger)
            restore.append(try await placed(expected) - start)
            await walk.value
        }
        try await closeAll()
        return (bare, restore)
    }

    /// Prints the medians of `bare` and `restore` and their ratio under `title`.
    static func printFigures(_ title: String, bare: [Duration], restore: [Duration]) {
        let (ours, theirs) = (bare.sorted()[bare.count / 2], restore.sorted()[restore.count / 2])
        print(title)
        print("bare launch until mapped:              \(ours)")
        print("restore until every window is placed:  \(theirs)")
        print(String(format: "ratio (restore / bare): %.2f", theirs / ours))
    }
}
