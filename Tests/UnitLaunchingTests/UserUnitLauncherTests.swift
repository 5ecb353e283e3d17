import Foundation
import RestoredDBus
import UnitLaunching
import RestoredTestSupport
import SystemPackage
import Testing
import ProcFiles

/// Starting programs outside restored: by the user manager (played by
/// python3-dbusmock's systemd template, extended to start what it is asked
/// for) and, without one, detached.
@Suite struct UserUnitLauncherTests {
    /// A private bus, a directory to start in, and what to clean up.
    struct Fixture {
        let bus: PrivateBus
        let directory: String

        static func make() async throws -> Fixture {
            let bus = try await PrivateBus.start()
            let directory = bus.directory.appendingPathComponent("work dir").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return Fixture(bus: bus, directory: directory)
        }

        func launcher(_ connection: DBusConnection?) -> UserUnitLauncher {
            UserUnitLauncher(connection: connection, environment: ProcessInfo.processInfo.environment)
        }
    }

    static func cwd(of pid: Int32) -> String? {
        ProcProcess.directory(of: pid)
    }

    static func environment(of pid: Int32) -> [String] {
        ProcProcess.environment(of: pid).map { "\($0.key)=\($0.value)" }
    }

    /// Waits (a hang guard, no speed requirement) until `condition` holds.
    static func eventually(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            guard ContinuousClock.now < deadline else { Issue.record("condition not met within 30 s"); return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test("With a user manager: one transient unit with the program found in PATH, its arguments, directory and environment, started by the manager")
    func throughUserManager() async throws {
        let fixture = try await Fixture.make()
        let manager = try await UserManagerMock.start(on: fixture.bus)
        let connection = try await fixture.bus.connect()
        defer { connection.close() }
        let unit = UnitName.service(launcher: "restored", applicationID: "tmux", random: 0xbeef)
        let request = LaunchRequest(
            unitName: unit, description: "tmux server restored by restored", command: ["sleep", "3600"],
            workingDirectory: FilePath(fixture.directory), environment: ["RESTORED_TEST_MARK": "a b=c"]
        )
        #expect(try await fixture.launcher(connection).launch(request) == .unit(unit))

        let units = try await manager.transientUnits()
        #expect(units.count == 1)
        let asked = try #require(units.first)
        #expect(asked.name == "app-restored-tmux@beef.service")
        #expect(asked.executable == "/usr/bin/sleep" || asked.executable == "/bin/sleep")
        #expect(asked.command == ["sleep", "3600"])
        #expect(asked.properties["WorkingDirectory"]?.stringValue == fixture.directory)
        #expect(asked.environment == ["RESTORED_TEST_MARK": "a b=c"])
        #expect(asked.properties["Type"]?.stringValue == "exec")
        #expect(asked.properties["Slice"]?.stringValue == "app.slice")
        #expect(asked.properties["Description"]?.stringValue == "tmux server restored by restored")

        // The manager started it: not our child, in the directory, with the variable.
        let pid = try #require(manager.spawned[unit])
        #expect(getppid() != pid)
        #expect(Self.cwd(of: pid) == fixture.directory)
        #expect(Self.environment(of: pid).contains("RESTORED_TEST_MARK=a b=c"))
        kill(pid, SIGKILL)
    }

    @Test("A unit whose program cannot be executed fails with one line naming the unit; a program not in PATH is named")
    func failures() async throws {
        let fixture = try await Fixture.make()
        let manager = try await UserManagerMock.start(on: fixture.bus)
        let connection = try await fixture.bus.connect()
        defer { connection.close() }
        // Executable bit, but no format the kernel runs: the manager's job fails.
        let broken = fixture.directory + "/not-a-program"
        try "just text".write(toFile: broken, atomically: true, encoding: .utf8)
        chmod(broken, 0o755)
        await #expect {
            _ = try await fixture.launcher(connection).launch(LaunchRequest(unitName: "app-restored-x@1.service", description: "x", command: [broken]))
        } throws: { error in
            (error as? LaunchError)?.description == "the user manager could not start app-restored-x@1.service (failed); see journalctl --user -u app-restored-x@1.service"
        }
        await #expect {
            _ = try await fixture.launcher(connection).launch(LaunchRequest(
                unitName: "app-restored-y@1.service", description: "y", command: ["restored-no-such-program"], environment: ["PATH": "/usr/bin:/bin"]
            ))
        } throws: { error in
            (error as? LaunchError)?.description == "restored-no-such-program is not installed (not found in PATH=/usr/bin:/bin)"
        }
        #expect(try await manager.transientUnits().count == 1)
    }

    @Test("Without a user manager: started detached, in its own session, reparented away, in the directory, with the environment, holding only /dev/null")
    func detached() async throws {
        let fixture = try await Fixture.make()
        let connection = try await fixture.bus.connect()
        defer { connection.close() }
        let request = LaunchRequest(
            unitName: "app-restored-tmux@1.service", description: "tmux", command: ["sleep", "3600"],
            workingDirectory: FilePath(fixture.directory), environment: ["RESTORED_TEST_MARK": "detached"]
        )
        guard case .detached(let pid) = try await fixture.launcher(connection).launch(request) else {
            Issue.record("expected a detached start")
            return
        }
        defer { kill(pid, SIGKILL) }
        // A session of its own (its first parent's: it is no session leader,
        // so it can never take a controlling terminal back).
        #expect(getsid(pid) != getsid(0))
        let parent = ProcProcess.status("PPid", of: pid)
        #expect(parent != nil && parent != String(getpid()))
        #expect(Self.cwd(of: pid) == fixture.directory)
        #expect(Self.environment(of: pid).contains("RESTORED_TEST_MARK=detached"))
        // Nothing inherited: once sleep has started (it opens its locale
        // files for a moment, so one look may catch one), it holds only
        // /dev/null. An inherited descriptor stays, and fails the wait.
        func descriptors() -> [String] {
            ProcProcess.descriptors(of: pid).sorted { $0.key < $1.key }.map(\.value)
        }
        try await Self.eventually { descriptors() == ["/dev/null", "/dev/null", "/dev/null"] }
        // A program that cannot be executed is an error, not a silent child.
        await #expect(throws: LaunchError.self) {
            _ = try await fixture.launcher(nil).launch(LaunchRequest(unitName: "u", description: "u", command: ["/etc/hostname"]))
        }
    }

    @Test("Unit names follow DESKTOP_ENVIRONMENTS.md: app-<launcher>-<id>@<random>.service, escaped as systemd-escape does")
    func unitNames() {
        #expect(UnitName.service(launcher: "restored", applicationID: "org.gnome.Terminal", random: 0xabc) == "app-restored-org.gnome.Terminal@abc.service")
        #expect(UnitName.escape("my-app") == "my\\x2dapp")
        #expect(UnitName.escape(".hidden é") == "\\x2ehidden\\x20\\xc3\\xa9")
    }
}

/// The launcher against a real systemd user manager (``UserManager``),
/// where what matters is what systemd itself does with a launch.
@Suite struct RealUserManagerLaunchTests {
    @Test("A real systemd --user starts the program with every argument as it was ($HOME, ${HOME}, a lone $, $(...), %h kept), in its directory, outside any seccomp filter, in app.slice", .enabled(if: UserManager.isAvailable, "needs root, unshare and systemd"))
    func argumentsAsTheyWere() async throws {
        let manager = try await UserManager()
        defer { manager.stop() }
        let connection = try await DBusConnection.connect(to: .address(manager.busAddress))
        defer { connection.close() }
        let directory = manager.directory + "/dir $HOME"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let recorded = manager.directory + "/argv"
        let hostile = ["$HOME", "${HOME}", "a${HOME}b", "$", "$$", "$(touch ran)", "%h %n %%", "plain"]
        let unit = UnitName.service(launcher: "restored", applicationID: "org.example.Recorder", random: 0xcafe)
        let request = LaunchRequest(
            unitName: unit, description: "recorder",
            command: ["/bin/sh", "-c", "printf '%s\\0' \"$@\" > \"$0\"; exec sleep 3600", recorded] + hostile,
            workingDirectory: FilePath(directory)
        )
        #expect(try await UserUnitLauncher(connection: connection, environment: manager.clientEnvironment).launch(request) == .unit(unit))
        try await UserUnitLauncherTests.eventually { FileManager.default.fileExists(atPath: recorded) && ((try? Data(contentsOf: URL(fileURLWithPath: recorded)))?.count ?? 0) > 0 }
        let argv = try Data(contentsOf: URL(fileURLWithPath: recorded)).split(separator: 0, omittingEmptySubsequences: false).dropLast().map { String(decoding: $0, as: UTF8.self) }
        #expect(argv == hostile)
        let status = try await manager.systemctl(["show", "-p", "MainPID", "-p", "ControlGroup", "--value", unit])
        let lines = status.output.split(separator: "\n").map(String.init)
        let pid = try #require(lines.first.flatMap { Int32($0) })
        #expect(UserUnitLauncherTests.cwd(of: pid) == directory)
        #expect(ProcProcess.status("Seccomp", of: pid) == "0")
        #expect(lines.last?.contains("/app.slice/\(unit)") == true, "\(lines)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/ran"))
    }
}
