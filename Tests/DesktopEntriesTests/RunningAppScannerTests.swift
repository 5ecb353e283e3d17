import AppDiscovery
import DesktopEntries
import Foundation
import RestoredTestSupport
import Testing

/// Finding the running apps of the session from `/proc`, on real processes:
/// in a real cgroup named as a launcher names units, launched with GIO's
/// variables, and matched by executable.
@Suite(.serialized) struct RunningAppScannerTests {
    /// systemd's own cgroup hierarchy, where a test can make a unit's cgroup
    /// (PID 1 here is not systemd, so no manager makes one).
    static let cgroupRoot = "/sys/fs/cgroup/systemd"
    static var cgroupsWritable: Bool { access(cgroupRoot, W_OK) == 0 }

    let root: String
    let index: DesktopEntryIndex

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("apps-\(UUID().uuidString)").path
        let applications = root + "/share/applications"
        try FileManager.default.createDirectory(atPath: applications, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/work", withIntermediateDirectories: true)
        for (id, exec, extra) in [
            ("org.example.Unit", "sleep 1000", ""),
            ("org.example.Launched", "sleep 2000", ""),
            ("org.example.Follow", "tail -f %F", ""),
            ("org.example.Hidden", "yes", "NoDisplay=true\n"),
            ("org.example.Shell", "sh -c x", ""),
        ] {
            try "[Desktop Entry]\nType=Application\nName=\(id)\nExec=\(exec)\n\(extra)".write(toFile: applications + "/\(id).desktop", atomically: false, encoding: .utf8)
        }
        index = DesktopEntryIndex(directories: [applications])
    }

    func start(_ command: String, environment extra: [String: String] = [:], log: String) throws -> ChildProcess {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extra) { _, new in new }
        return try ChildProcess("/bin/sh", ["-c", "cd '\(root)/work' && \(command)"], environment: environment, log: root + "/" + log)
    }

    @Test("Another user's process of a known program is not this user's app (it is skipped before its files are read)")
    func otherUsers() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "one\n".write(toFile: root + "/work/a.log", atomically: false, encoding: .utf8)
        chmod(root, 0o755)
        chmod(root + "/work", 0o755)
        chmod(root + "/work/a.log", 0o644)
        let mine = try start("exec tail -f a.log", log: "mine.log")
        defer { mine.stop() }
        let theirs = try start("exec setpriv --reuid 65534 --regid 65534 --clear-groups tail -f a.log", log: "theirs.log")
        defer { theirs.stop() }
        var apps: [RunningApp] = []
        try await eventually {
            let owner = try? String(contentsOfFile: "/proc/\(theirs.pid)/status", encoding: .utf8)
            guard owner?.contains("Uid:\t65534") == true else { return false }
            apps = RunningAppScanner().scan(index).filter { [mine.pid, theirs.pid].contains($0.pid) }
            return !apps.isEmpty
        }
        #expect(apps.map(\.pid) == [mine.pid])
        #expect(apps.first?.desktopID == "org.example.Follow.desktop")
    }

    @Test("GIO's variables on the launched process, and an executable with the files it was opened with; NoDisplay entries and launchers (a shell) never match")
    func launchedAndExecutable() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "one\n".write(toFile: root + "/work/a.log", atomically: false, encoding: .utf8)
        try "two\n".write(toFile: root + "/work/b c.log", atomically: false, encoding: .utf8)
        let launched = try start(
            "GIO_LAUNCHED_DESKTOP_FILE_PID=$$ exec sleep 2000",
            environment: ["GIO_LAUNCHED_DESKTOP_FILE": root + "/share/applications/org.example.Launched.desktop"], log: "launched.log")
        defer { launched.stop() }
        // tail with two files, one gone since, and a child tail of its own (same program: same instance).
        let follow = try start("exec tail -f a.log 'b c.log' gone.log", log: "follow.log")
        defer { follow.stop() }
        let hidden = try start("exec yes > /dev/null", log: "yes.log")
        defer { hidden.stop() }
        // A shell that stays (its child runs), for the entry whose Exec is sh.
        let shell = try start("sleep 3000; true", log: "shell.log")
        defer {
            for child in ((try? String(contentsOfFile: "/proc/\(shell.pid)/task/\(shell.pid)/children", encoding: .utf8)) ?? "").split(separator: " ").compactMap({ Int32($0) }) {
                kill(child, SIGKILL)
            }
            shell.stop()
        }

        var apps: [RunningApp] = []
        try await eventually {
            apps = RunningAppScanner().scan(index).filter { [launched.pid, follow.pid, hidden.pid].contains($0.pid) }
            return apps.count == 2
        }
        let byID = Dictionary(uniqueKeysWithValues: apps.map { ($0.desktopID, $0) })
        #expect(byID["org.example.Launched.desktop"]?.pid == launched.pid)
        #expect(byID["org.example.Launched.desktop"]?.evidence == .launcherEnvironment)
        let tail = try #require(byID["org.example.Follow.desktop"])
        #expect(tail.pid == follow.pid && tail.evidence == .executable)
        #expect(tail.directory == root + "/work")
        #expect(tail.openedItems == [root + "/work/a.log", root + "/work/b c.log"])
        #expect(byID["org.example.Hidden.desktop"] == nil)
        #expect(!RunningAppScanner().scan(index).contains { $0.desktopID == "org.example.Shell.desktop" })
    }

    @Test("A unit named as DESKTOP_ENVIRONMENTS.md says is one instance, its main process the first whose parent is outside it", .enabled(if: cgroupsWritable, "needs systemd's cgroup hierarchy writable at /sys/fs/cgroup/systemd"))
    func unit() async throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let parent = Self.cgroupRoot + "/restored-test-\(UUID().uuidString)"
        let unit = "app-restoredtest-org.example.Unit-4242.scope"
        try FileManager.default.createDirectory(atPath: parent + "/" + unit, withIntermediateDirectories: true)
        // Runs last, after the processes in the unit are killed.
        defer { Self.removeCgroups([parent + "/" + unit, parent]) }
        // It waits to be moved into the unit, then starts a second process there.
        let go = root + "/go"
        let app = try start("while [ ! -e '\(go)' ]; do sleep 0.05; done; sleep 1000 & exec sleep 1000", log: "unit.log")
        defer {
            // Its child too, by pid, from the unit's own list.
            if let members = try? String(contentsOfFile: parent + "/" + unit + "/cgroup.procs", encoding: .utf8) {
                for pid in members.split(separator: "\n").compactMap({ Int32($0) }) where pid != app.pid { kill(pid, SIGKILL) }
            }
            app.stop()
        }
        try "\(app.pid)\n".write(toFile: parent + "/" + unit + "/cgroup.procs", atomically: false, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        try await eventually {
            ((try? String(contentsOfFile: parent + "/" + unit + "/cgroup.procs", encoding: .utf8)) ?? "").split(separator: "\n").count == 2
        }
        let apps = RunningAppScanner().scan(index).filter { $0.desktopID == "org.example.Unit.desktop" }
        #expect(apps.count == 1)
        #expect(apps.first?.pid == app.pid)
        #expect(apps.first?.evidence == .unit)
        #expect(apps.first?.unit == unit)
    }

    /// Removes the cgroups at `paths`, innermost first, each once the
    /// processes killed in it have left it (a killed process is in its
    /// cgroup until it has exited, and `rmdir` fails with EBUSY till then).
    static func removeCgroups(_ paths: [String]) {
        let deadline = ContinuousClock.now + .seconds(10)
        for path in paths {
            while rmdir(path) != 0 && errno == EBUSY && ContinuousClock.now < deadline {
                usleep(20_000)
            }
        }
    }

    func eventually(_ condition: () throws -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while try !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out (a hang guard, not a speed requirement)")
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
