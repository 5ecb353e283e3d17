import ArgumentParser
import Foundation
import ProcFiles
import RestoredDBus
import RestoredTestSupport

/// `restored-bench suspend`: the real daemon with N synthetic apps on
/// private buses, with python3-dbusmock's logind.
struct SuspendBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suspend",
        abstract: "Time the save before suspend and the restore at login of the real daemon with N synthetic apps.",
        discussion: """
            For each app count, the benchmark starts a private dbus-daemon, python3-dbusmock's \
            logind template (InhibitDelayMaxUSec = 5 s, logind's default) and the built restored \
            with that many copies of the synthetic plugin, each app holding --objects objects. \
            Suspend: the time from just before the mock emits PrepareForSleep(true) until \
            restored's LockHeld property changes to false, which restored signals right after \
            closing the lock's descriptor; the first round is a warm-up. Login restore: the time \
            from starting restored until READY=1 with every archive to restore, against the same \
            start with an empty state directory (loading the plugins, joining the buses) in the \
            same run. CPU: restored's and its plugin hosts' user and system time (clock \
            ticks), over the suspend rounds after the warm-up (per round: the save and the resume \
            after it), and for the login restore at READY=1 less the same at the start without \
            archives, medians. Idle: resident memory after start, and context switches of all restored's \
            threads over a quiet window, watchdog off (systemd's watchdog adds two pings per \
            WatchdogSec), counted apart from libdispatch's event-manager thread, whose \
            workqueue monitor ticks once a second in every process that has used a dispatch \
            worker thread (Swift concurrency does) on Linux.
            """
    )

    @Option(help: "App counts, comma-separated.")
    var apps = "1,10,100"

    @Option(help: "Objects per app.")
    var objects = 1000

    @Option(help: "Suspend rounds per app count (after one warm-up); the median is reported.")
    var rounds = 15

    @Option(help: "Starts per app count for the login restore; the median is reported.")
    var starts = 5

    @Option(help: "Seconds of the idle window for wake-ups.")
    var idleSeconds = 20

    @Flag(help: "Print every suspend round.")
    var verbose = false

    func run() async throws {
        let counts = apps.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }) else { throw ValidationError("--apps takes counts like 1,10,100") }
        print("suspend benchmark: \(objects) objects per app; medians; the delay budget is logind's InhibitDelayMaxUSec (5 s)")
        print("apps  suspend save (ratio to budget)  login restore (start with / without archives)  idle restored RSS / PSS  helpers PSS  idle wake-ups/min")
        var results: [Result] = []
        for count in counts {
            let result = try await measure(apps: count)
            results.append(result)
            print(result.line)
        }
        print("")
        print("apps  start with archives: warm / cold (page cache dropped)  restored RSS 5 s after the login restore")
        for result in results {
            let cold = result.coldStartWithArchives.map(Result.ms) ?? "not measured (dropping the page cache needs root)"
            print("\(String(result.apps).padding(4))  \(Result.ms(result.startWithArchives)) / \(cold)".padding(60) + "  \(Result.mib(result.residentAfterRestoreKiB))")
        }
        print("")
        print("apps  CPU time (user and system, in clock ticks) of a suspend round (the save, and the resume after it) and of the login restore: restored's, and its plugin hosts' together")
        for result in results {
            print("\(String(result.apps).padding(4))  suspend CPU: \(result.suspendCPU)".padding(62) + "  login CPU: \(result.loginCPU)")
        }
    }

    /// Drops the page cache (`vm.drop_caches`, after `sync`), so that the
    /// next start reads restored, its libraries, plugins and archives from
    /// the disk, as the first login after a boot does; false where the
    /// machine does not allow it (not root, or a read-only /proc/sys).
    static func dropPageCache() -> Bool {
        sync()
        guard let file = fopen("/proc/sys/vm/drop_caches", "w") else { return false }
        defer { fclose(file) }
        return fputs("3\n", file) >= 0 && fflush(file) == 0
    }

    /// Everything measured for one app count.
    struct Result {
        let apps: Int
        let suspend: Duration
        let budget: Duration
        let startWithArchives: Duration
        let startWithout: Duration
        let residentKiB: Int
        let proportionalKiB: Int
        /// The login start with archives after the page cache was dropped; nil where it cannot be.
        let coldStartWithArchives: Duration?
        /// restored's resident memory 5 s after every app was restored at login.
        let residentAfterRestoreKiB: Int
        /// The CPU time of one suspend round (the save, and the resume after
        /// it): restored's, and its plugin hosts' together.
        let suspendCPU: CPUTime
        /// The CPU time of the login restore (the start with archives, less
        /// the start without): restored's and its plugin hosts' together.
        let loginCPU: CPUTime
        let helpersProportionalKiB: Int
        let wakeupsPerMinute: Double
        let dispatchWakeupsPerMinute: Double

        var line: String {
            let restore = startWithArchives - startWithout
            return "\(String(apps).padding(4))  \(Self.ms(suspend)) (\(String(format: "%.3f", suspend / budget)))".padding(34)
                + "  \(Self.ms(restore)) (\(Self.ms(startWithArchives)) / \(Self.ms(startWithout)))".padding(47)
                + "  \(Self.mib(residentKiB)) / \(Self.mib(proportionalKiB))".padding(24)
                + "  \(Self.mib(helpersProportionalKiB))".padding(13)
                + "  \(String(format: "%.1f", wakeupsPerMinute)) (+ \(String(format: "%.1f", dispatchWakeupsPerMinute)) libdispatch)"
        }

        static func mib(_ kib: Int) -> String {
            String(format: "%.1f MiB", Double(kib) / 1024)
        }

        static func ms(_ duration: Duration) -> String {
            String(format: "%.1f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
        }
    }

    private func measure(apps count: Int) async throws -> Result {
        let bus = try await PrivateBus.start()
        defer { bus.stop() }
        let logind = try await LogindMock.start(on: bus)
        defer { logind.stop() }
        let budget = Duration.seconds(5)
        try await logind.setProperty("InhibitDelayMaxUSec", .uint64(5_000_000))
        let root = bus.directory.path
        let plugins = root + "/plugins", state = root + "/state", empty = root + "/empty-state"
        for directory in [plugins, state, empty] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        var options: [String] = []
        for index in 0..<count {
            // Copies, not links: each is its own image, serving its own app.
            try FileManager.default.copyItem(atPath: BuildProducts.plugin("SyntheticPlugin"), toPath: plugins + "/libSyntheticPlugin-\(index).so")
            options += ["--option", "org.restored.bench.Synthetic\(index):objects=\(objects)"]
        }
        let notify = try NotifyListener(path: root + "/notify")
        defer { notify.close() }
        let launcher = Launcher(bus: bus, notify: notify, arguments: ["--plugin-dir", plugins, "--log-level", "warning"] + options)

        // Suspend rounds.
        let (daemon, _) = try await launcher.start(state: state, log: "restored-suspend.log")
        let client = try await bus.connect()
        defer { client.close() }
        let changes = try await client.signals(matching: DBusMatchRule(
            sender: "org.restored1", path: "/org/restored1", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"
        ))
        var lockChanges = changes.compactMap { signal -> Bool? in
            (try? signal.arguments())?.dropFirst().first?.stringKeyedValue?["LockHeld"]?.boolValue
        }.makeAsyncIterator()
        try await Self.waitUntil { try await logind.inhibitors().count == 1 }
        let loaded = try await client.call(
            destination: "org.restored1", path: "/org/restored1", interface: "org.freedesktop.DBus.Properties", member: "Get",
            arguments: [.string("org.restored1.Manager"), .string("Apps")]
        ).first?.arrayValue?.count ?? 0
        guard loaded == count else { throw BenchmarkFailure("restored serves \(loaded) apps, not \(count); see \(root)") }
        var suspends: [Duration] = []
        var cpuBefore = CPUTime(restored: 0, hosts: 0)
        for round in 0...rounds {
            if round == 1 { cpuBefore = CPUTime.of(daemon.pid) }
            let start = ContinuousClock.now
            try await logind.emit("PrepareForSleep", signature: "b", [.boolean(true)])
            while let held = await lockChanges.next(), held {}
            if round > 0 { suspends.append(ContinuousClock.now - start) }
            if verbose { print("  \(count) apps, suspend round \(round)\(round == 0 ? " (warm-up)" : ""): \(Result.ms(ContinuousClock.now - start))") }
            guard try await logind.inhibitors().isEmpty else { throw BenchmarkFailure("logind still lists the lock after LockHeld went false") }
            try await logind.emit("PrepareForSleep", signature: "b", [.boolean(false)])
            while let held = await lockChanges.next(), !held {}
        }
        var suspendCPU = CPUTime.of(daemon.pid) - cpuBefore
        suspendCPU.restored /= Double(max(rounds, 1))
        suspendCPU.hosts /= Double(max(rounds, 1))

        // Idle: memory, and every thread's context switches over a quiet
        // window, once idle worker threads have ended.
        try await Task.sleep(for: .seconds(10))
        let resident = try Self.residentKiB(of: daemon.pid)
        let proportional = try Self.proportionalKiB(of: daemon.pid)
        let helpers = Self.children(of: daemon.pid)
        guard helpers.count == count else { throw BenchmarkFailure("restored has \(helpers.count) plugin hosts for \(count) apps") }
        let helpersProportional = try helpers.reduce(0) { $0 + (try Self.proportionalKiB(of: $1)) }
        let switchesBefore = try Self.contextSwitches(of: daemon.pid)
        try await Task.sleep(for: .seconds(idleSeconds))
        let switches = Self.wakeups(from: switchesBefore, to: try Self.contextSwitches(of: daemon.pid))
        guard await daemon.terminated(timeout: .seconds(60)) == 0 else { throw BenchmarkFailure("restored did not stop cleanly; see \(root)") }

        // Login restore: starts with the archives just written, and without any.
        var withArchives: [Duration] = [], without: [Duration] = [], afterRestore: [Int] = []
        var cpuWith: [CPUTime] = [], cpuWithout: [CPUTime] = []
        for index in 0..<starts {
            // A fresh empty directory each time: every stop saves.
            let fresh = empty + "/\(index)"
            for (directory, name) in [(state, "with"), (fresh, "without")] {
                let (started, ready) = try await launcher.start(state: directory, log: "restored-start-\(name)-\(index).log")
                if directory == state {
                    // Count only starts that restored every app (READY also
                    // comes when the login-restore budget runs out).
                    try await Self.expectRestored(apps: count, on: bus)
                    cpuWith.append(CPUTime.of(started.pid))
                    withArchives.append(ready)
                    // Idle after the restore: restored gives back what the
                    // round freed two seconds after it (HeapRelease).
                    try await Task.sleep(for: .seconds(5))
                    afterRestore.append(try Self.residentKiB(of: started.pid))
                } else {
                    // Asked as the start with archives is, once ready.
                    try await Self.expectStarted(apps: count, on: bus)
                    cpuWithout.append(CPUTime.of(started.pid))
                    without.append(ready)
                }
                guard await started.terminated(timeout: .seconds(60)) == 0 else { throw BenchmarkFailure("restored did not stop cleanly; see \(root)") }
            }
        }
        // A cold login: the same start with archives, the page cache dropped before each.
        var cold: [Duration] = []
        for index in 0..<starts where Self.dropPageCache() {
            let (started, ready) = try await launcher.start(state: state, log: "restored-start-cold-\(index).log")
            try await Self.expectRestored(apps: count, on: bus)
            cold.append(ready)
            guard await started.terminated(timeout: .seconds(60)) == 0 else { throw BenchmarkFailure("restored did not stop cleanly; see \(root)") }
        }
        return Result(
            apps: count, suspend: Self.median(suspends), budget: budget,
            startWithArchives: Self.median(withArchives), startWithout: Self.median(without),
            residentKiB: resident, proportionalKiB: proportional,
            coldStartWithArchives: cold.isEmpty ? nil : Self.median(cold), residentAfterRestoreKiB: afterRestore.sorted()[afterRestore.count / 2],
            suspendCPU: suspendCPU, loginCPU: CPUTime.median(cpuWith) - CPUTime.median(cpuWithout),
            helpersProportionalKiB: helpersProportional, wakeupsPerMinute: Double(switches.restored) * 60 / Double(idleSeconds),
            dispatchWakeupsPerMinute: Double(switches.dispatchManager) * 60 / Double(idleSeconds)
        )
    }

    /// CPU time, user and system, of restored and of its plugin hosts.
    struct CPUTime: CustomStringConvertible {
        var restored: Double
        var hosts: Double

        /// restored's (`pid`) and its children's, in milliseconds.
        static func of(_ pid: Int32) -> CPUTime {
            let tick = 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
            let hosts = children(of: pid).reduce(0) { $0 + (ProcAccounting.cpuTicks(of: $1) ?? 0) }
            return CPUTime(restored: Double(ProcAccounting.cpuTicks(of: pid) ?? 0) * tick, hosts: Double(hosts) * tick)
        }

        static func - (later: CPUTime, earlier: CPUTime) -> CPUTime {
            CPUTime(restored: later.restored - earlier.restored, hosts: later.hosts - earlier.hosts)
        }

        /// The middle value of each.
        static func median(_ values: [CPUTime]) -> CPUTime {
            let restored = values.map(\.restored).sorted(), hosts = values.map(\.hosts).sorted()
            return CPUTime(restored: restored[restored.count / 2], hosts: hosts[hosts.count / 2])
        }

        var description: String {
            String(format: "restored %.1f ms, plugin hosts %.1f ms", restored, hosts)
        }
    }

    /// Starts restored on the benchmark's buses and times it to READY=1.
    struct Launcher {
        let bus: PrivateBus
        let notify: NotifyListener
        let arguments: [String]
        /// restored's environment, before the buses and the notify socket are set.
        var environment = ProcessInfo.processInfo.environment

        func start(state: String, log: String) async throws -> (ChildProcess, Duration) {
            var environment = self.environment
            environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
            environment["NOTIFY_SOCKET"] = notify.address
            for name in ["WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM"] { environment.removeValue(forKey: name) }
            let start = ContinuousClock.now
            let daemon = try ChildProcess(
                BuildProducts.executable("restored"), arguments + ["--state-dir", state],
                environment: environment, log: bus.directory.appendingPathComponent(log).path
            )
            while let message = try await notify.receiveOffPool(timeout: 120_000) {
                if message.split(separator: "\n").contains("READY=1") { return (daemon, ContinuousClock.now - start) }
            }
            daemon.stop()
            throw BenchmarkFailure("restored sent no READY=1; see \(bus.directory.path)/\(log)")
        }
    }

    /// Checks through `ListApps` that every app's last result is a restore at login that worked.
    static func expectRestored(apps count: Int, on bus: PrivateBus) async throws {
        let rows = try await listApps(on: bus)
        let restored = rows.filter { row in
            let fields = row.stringKeyedValue ?? [:]
            return fields["LastTrigger"]?.stringValue == "login" && fields["LastOutcome"]?.stringValue == "restored"
        }
        guard restored.count == count else {
            let outcomes = rows.map { row in
                let fields = row.stringKeyedValue ?? [:]
                return "\(fields["App"]?.stringValue ?? "?"): \(fields["LastTrigger"]?.stringValue ?? "") \(fields["LastOutcome"]?.stringValue ?? "") \(fields["LastDetail"]?.stringValue ?? "")"
            }
            throw BenchmarkFailure("only \(restored.count) of \(count) apps were restored at login: \(outcomes.prefix(3).joined(separator: "; "))")
        }
    }

    /// Checks through `ListApps` that restored serves `count` apps: the
    /// same call as ``expectRestored(apps:on:)``, for a start without archives.
    static func expectStarted(apps count: Int, on bus: PrivateBus) async throws {
        let rows = try await listApps(on: bus)
        guard rows.count == count else { throw BenchmarkFailure("restored serves \(rows.count) apps, not \(count)") }
    }

    /// The rows of restored's `ListApps`.
    static func listApps(on bus: PrivateBus) async throws -> [DBusValue] {
        let client = try await bus.connect()
        defer { client.close() }
        return try await client.call(destination: "org.restored1", path: "/org/restored1", interface: "org.restored1.Manager", member: "ListApps")
            .first?.arrayValue ?? []
    }

    static func waitUntil(_ what: String = "the daemon", within limit: Duration = .seconds(10), _ condition: () async throws -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw BenchmarkFailure("timed out waiting for \(what)")
    }

    static func median(_ values: [Duration]) -> Duration {
        let sorted = values.sorted()
        return sorted.isEmpty ? .zero : sorted[sorted.count / 2]
    }

    /// The proportional set size of `pid` (shared pages divided among the
    /// processes that map them), in KiB.
    static func proportionalKiB(of pid: Int32) throws -> Int {
        try kibField("Pss", inFile: "smaps_rollup", of: pid)
    }

    /// A `key: N` line of one of `pid`'s /proc files.
    static func kibField(_ key: String, inFile file: String, of pid: Int32) throws -> Int {
        guard let value = ProcAccounting.number(key, inFile: file, of: pid) else { throw BenchmarkFailure("no \(key) in /proc/\(pid)/\(file)") }
        return value
    }

    /// The pids of `parent`'s children (restored's plugin hosts).
    static func children(of parent: Int32) -> [Int32] {
        ProcProcess.children(of: parent)
    }

    /// VmRSS of `pid`, in KiB.
    static func residentKiB(of pid: Int32) throws -> Int {
        try kibField("VmRSS", inFile: "status", of: pid)
    }

    /// The context switches of each thread of `pid`, by thread id.
    static func contextSwitches(of pid: Int32) throws -> [String: ProcAccounting.ThreadSwitches] {
        guard let switches = ProcAccounting.contextSwitches(of: pid) else { throw BenchmarkFailure("cannot read the threads of \(pid)") }
        return switches
    }

    /// The wake-ups between two readings, of restored's threads and of
    /// libdispatch's (its event manager and retiring workers): each thread's
    /// new switches; a thread born in between counts all of its own, one
    /// that ended counts one.
    static func wakeups(from before: [String: ProcAccounting.ThreadSwitches], to after: [String: ProcAccounting.ThreadSwitches]) -> (restored: Int, dispatchManager: Int) {
        var restored = 0, manager = 0
        for (thread, now) in after {
            let count = now.count - (before[thread]?.count ?? 0)
            if now.waitsInEpoll || before[thread]?.waitsInEpoll == true { manager += count } else { restored += count }
        }
        // A thread that ended is a libdispatch worker retiring after idling:
        // restored's own threads (main, one per D-Bus connection) live as
        // long as the process.
        manager += before.keys.filter { after[$0] == nil }.count
        return (restored, manager)
    }
}

extension String {
    /// The string padded with spaces to `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
