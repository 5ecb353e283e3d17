import ArgumentParser
import Dispatch
import Foundation
import Glibc
import Logging
import RestoredArchive
import RestoredEngine
import Synchronization
import SystemPackage

/// `restored-bench floors`: what a save and a restore of N apps cost at
/// least on this machine with today's plugin ABI and coder, beside what
/// restored spends.
///
/// The suspend suite measures the whole save and login restore. This suite
/// measures their parts apart, so that they can be read against what no
/// design of the walk can go under: the durable writes (a file written,
/// flushed and renamed per app, the directory flushed) and the encoding and
/// decoding of every object through the SDK's coder and the C ABI.
struct FloorBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "floors",
        abstract: "Measure the parts of a save and a restore of N apps apart: the coder, the walks, restored's check and its files.",
        discussion: """
            One synthetic app (--objects objects, as in the suspend suite) is encoded in this process. \
            CPU time of this thread, per app, times N: the coder alone (every object encoded through the \
            SDK's StateCoder and the C ABI and the archive packed, and back: no discovery, no checks), \
            the whole preservation and restoration walks around it, and restored's check of the archive \
            (every byte read as a restore will). Wall time, all N apps at once, each on a serial queue \
            of its own as restored serves them: the durable write floor (a temporary file written and \
            flushed, renamed over the archive, the directory flushed: the least a save that survives a \
            power cut can do); restored's archive store writing the same archives (its new generation \
            stamped in, the previous generation kept, every step flushed); and what restored does for \
            each app at login around the walk (the archive read and every byte checked, R15's attempt \
            written in its record before the walk and taken back after it, in place), from a warm page cache. Medians of \
            --rounds rounds after a warm-up. The files go to a directory of their own beside restored's \
            archives (the same file system: on tmpfs a flush does nothing), removed at the end.
            """
    )

    @Option(help: "App counts, comma-separated.")
    var apps = "10,100"

    @Option(help: "Objects per app.")
    var objects = 1000

    @Option(help: "Rounds; the median is reported.")
    var rounds = 9

    @Option(name: .customLong("plugin-dir"), help: "Where libSyntheticPlugin.so is (default: beside this program).")
    var pluginDirectory: String?

    @Option(help: "Where the files go: a new directory in it, removed at the end (default: beside restored's archives).")
    var directory: String?

    func run() throws {
        let counts = apps.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }
        guard !counts.isEmpty else { throw BenchmarkFailure("--apps needs at least one positive count") }
        let logger = InProcessWalks.logger()
        let synthetic = try SyntheticApp(pluginDirectory: pluginDirectory, logger: logger)
        let engine = InProcessWalks.engine(logger: logger)
        let cpu = try cpuPerApp(synthetic: synthetic, engine: engine)
        let cores = ProcessInfo.processInfo.activeProcessorCount

        // Beside restored's archives, on their file system.
        let parent = directory ?? ArchiveStore.defaultDirectory(environment: ProcessInfo.processInfo.environment).removingLastComponent().string
        let root = "\(parent)/restored-bench-floors-\(getpid())"
        do {
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        } catch {
            throw BenchmarkFailure("cannot make \(root) (\((error as NSError).localizedDescription)); give --directory a writable directory on restored's file system")
        }
        defer { try? FileManager.default.removeItem(atPath: root) }

        print("floors: \(objects) objects per app (\(CodecBenchmark.bytes(cpu.archive.count)) of archive); \(cores) cores; medians of \(rounds) rounds")
        print("")
        var saves = [["save: apps", "coder alone, CPU", "whole walk, CPU", "restored's check, CPU", "durable writes, wall", "restored's store, wall", "store / writes"]]
        var restores = [["restore: apps", "coder alone, CPU", "whole walk, CPU", "restored's reading and R15's writes, wall"]]
        var bounds: [String] = []
        for count in counts {
            let archives = try cpu.archive(forApps: count)
            let floorDirectories = (0..<count).map { FilePath("\(root)/floor-\(count)/app\($0)") }
            for path in floorDirectories {
                try FileManager.default.createDirectory(atPath: path.string, withIntermediateDirectories: true)
            }
            let writes = try parallelWall(apps: count) { index in
                do {
                    try Self.durablyReplace(in: floorDirectories[index], with: archives[index].bytes)
                } catch {
                    throw BenchmarkFailure("a durable write in \(floorDirectories[index]) failed: \(error)")
                }
            }
            let store = ArchiveStore(directory: FilePath("\(root)/store-\(count)"))
            let stored = try parallelWall(apps: count) { index in
                _ = try store.write(encoded: archives[index].bytes, of: archives[index].appID)
            }
            // What restored does for each app at login around the walk
            // (RestorationEngine): the newest usable file read and every
            // byte of it checked, the attempt counted beside it (R15) before
            // the walk, and taken back after it.
            let read = try parallelWall(apps: count) { index in
                let reading = try store.readEncoded(archives[index].appID)
                try store.setRestoreAttempts(1, for: reading)
                try store.setRestoreAttempts(0, for: reading)
            }
            let apps = Double(count)
            func cpuTime(_ perApp: Double) -> String { CodecBenchmark.milliseconds(perApp * apps) }
            saves.append([
                "\(count)", cpuTime(cpu.encoding), cpuTime(cpu.preservation), cpuTime(cpu.check),
                CodecBenchmark.milliseconds(writes), CodecBenchmark.milliseconds(stored), String(format: "%.2fx", stored / writes),
            ])
            restores.append(["\(count)", cpuTime(cpu.decoding), cpuTime(cpu.restoration), CodecBenchmark.milliseconds(read)])
            // Each app is encoded on one thread: fewer apps than cores use fewer cores.
            let used = Double(min(count, cores))
            let saveCPU = (cpu.encoding + cpu.check) * apps / used
            let restoreCPU = (cpu.decoding + cpu.check) * apps / used
            bounds.append(String(
                format: "%d apps: no save with today's coder takes less than %.1f ms here (the coder and restored's check on %d cores: %.1f ms; the durable writes: %.1f ms), no restore less than %.1f ms (the coder and restored's check; R15's two rewrites in place of each app's record are in the reading's column)",
                count, max(saveCPU, writes) * 1000, Int(used), saveCPU * 1000, writes * 1000, restoreCPU * 1000
            ))
        }
        CodecBenchmark.printTable(saves)
        print("")
        CodecBenchmark.printTable(restores)
        print("")
        bounds.forEach { print($0) }
    }

    /// Per-app CPU seconds (medians) and the app's encoded archive.
    private struct PerApp {
        /// The coder alone, encoding (``SyntheticTree/encode()``).
        var encoding: Double
        /// The preservation walk and the archive's encoding.
        var preservation: Double
        /// restored's check of the archive (``ArchiveCodec/check(_:)``).
        var check: Double
        /// The coder alone, decoding (``SyntheticTree/decode(_:)``).
        var decoding: Double
        /// The archive's decoding and the restoration walk.
        var restoration: Double
        var archive: [UInt8]

        /// The archive encoded again for each of `count` apps, each with its own app ID.
        func archive(forApps count: Int) throws -> [(appID: AppID, bytes: [UInt8])] {
            var decoded = try ArchiveCodec.decode(archive)
            return try (0..<count).map { index in
                decoded.appID = try AppID("org.restored.bench.Floor\(index)")
                return (decoded.appID, ArchiveCodec.encode(decoded))
            }
        }
    }

    private func cpuPerApp(synthetic: SyntheticApp, engine: RestorationEngine) throws -> PerApp {
        let clock = ThreadCPUClock()
        var times: [[Double]] = Array(repeating: [], count: 5)
        var archive: [UInt8] = []
        // One round more than asked: the first warms the caches and is dropped.
        for round in 0...max(rounds, 1) {
            // Every instance is made before its timing, as in the codec suite.
            let tree = try synthetic.tree(objects: objects)
            let encoding = try clock.measure { archive = try tree.encode() }
            let session = try synthetic.session(objects: objects)
            var walked: [UInt8] = []
            let preservation = try clock.measure {
                let (made, report) = engine.makeArchive(of: session)
                guard let made, report.issues.isEmpty else { throw BenchmarkFailure("preservation failed: \(report.issues)") }
                walked = ArchiveCodec.encode(made)
            }
            let check = try clock.measure { _ = try ArchiveCodec.check(walked) }
            let emptyTree = try synthetic.tree(objects: objects, empty: true)
            let decoding = try clock.measure { try emptyTree.decode(archive) }
            try emptyTree.verify()
            let emptySession = try synthetic.session(objects: objects, empty: true)
            let restoration = try clock.measure {
                let report = engine.restore(emptySession, from: try ArchiveCodec.decode(walked))
                guard report.outcome == .restored, report.issues.isEmpty, report.restoredPaths.count == objects else {
                    throw BenchmarkFailure("restoration failed or lost data: \(report.outcome) \(report.issues.prefix(3))")
                }
            }
            if round == 0 { continue }
            for (index, time) in [encoding, preservation, check, decoding, restoration].enumerated() {
                times[index].append(time)
            }
        }
        let medians = times.map(CodecBenchmark.median)
        return PerApp(
            encoding: medians[0], preservation: medians[1], check: medians[2], decoding: medians[3], restoration: medians[4], archive: archive
        )
    }

    /// The median wall time, in seconds, of `body` run for every app at once
    /// (given the app's index), each app on a serial queue of its own. One
    /// warm-up round first.
    private func parallelWall(apps: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws -> Double {
        let queues = (0..<apps).map { DispatchQueue(label: "restored-bench.floors.\($0)") }
        let failures = Failures()
        var times: [Double] = []
        let clock = ContinuousClock()
        for round in 0...max(rounds, 1) {
            let group = DispatchGroup()
            let elapsed = clock.measure {
                for index in 0..<apps {
                    queues[index].async(group: group) {
                        do { try body(index) } catch { failures.record("\(error)") }
                    }
                }
                group.wait()
            }
            if let failure = failures.first { throw BenchmarkFailure(failure) }
            if round > 0 { times.append(CodecBenchmark.seconds(elapsed)) }
        }
        return CodecBenchmark.median(times)
    }

    /// The least a durable replacement of one file does: a new file written
    /// and flushed, renamed over the old one, the directory flushed; through
    /// the archive store's own calls (``FileSystem``).
    private static func durablyReplace(in path: FilePath, with bytes: [UInt8]) throws(Errno) {
        let fileSystem = FileSystem.live
        let directory = try fileSystem.openDirectory(path)
        defer { fileSystem.close(directory) }
        let (file, name) = try fileSystem.createTemporaryFile(in: directory, prefix: ".archive.")
        do {
            try fileSystem.writeAll(bytes, to: file)
            try fileSystem.fsync(file)
        } catch {
            try? fileSystem.close(file)
            throw error
        }
        try fileSystem.close(file)
        try fileSystem.rename(name, to: "archive", in: directory)
        try fileSystem.sync(directory)
    }
}

/// The failures of the apps' queues in a round; the first is reported.
private final class Failures: Sendable {
    private let failures = Mutex<[String]>([])

    func record(_ failure: String) {
        failures.withLock { $0.append(failure) }
    }

    var first: String? { failures.withLock { $0.first } }
}

/// The CPU time (user and system) of the calling thread: what a walk costs,
/// whatever else runs on the machine meanwhile.
private struct ThreadCPUClock {
    /// The seconds of CPU this thread spent in `body`.
    func measure(_ body: () throws -> Void) rethrows -> Double {
        let start = Self.now()
        try body()
        return Self.now() - start
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
