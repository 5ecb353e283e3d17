import Foundation
import Glibc
import MediaPlayers
import PluginToolkit
import ProcFiles
import SystemPackage
import RestoredArchive
import RestoredDBus
import RestoredTestSupport
import SystemSupport
import Testing

/// The media players' plugin with two real MPRIS players, mpv (with
/// mpv-mpris) and Audacious, through the real daemon: a logout (restored
/// stopped, the players killed) and a login (restored started again) bring
/// each back with its file, at its position, playing or paused, started
/// once: by the session plugin when it is loaded (the split of
/// docs/apps.md, "Media players"), else by the media players' plugin.
@Suite(.serialized) struct MediaPlayersPluginTests {
    static let appID = "org.restored.MediaPlayers"
    static let sessionAppID = "org.restored.Session"

    /// The players' own configuration: no sound card (mpv's null output,
    /// Audacious's SDL output on SDL's dummy driver, both in real time),
    /// no video output for mpv.
    static func configurePlayers(config: String, bus: PrivateBus, environment: [String: String]) async throws {
        try FileManager.default.createDirectory(atPath: config + "/mpv", withIntermediateDirectories: true)
        try "ao=null\nvo=null\nmsg-level=all=warn\n".write(toFile: config + "/mpv/mpv.conf", atomically: true, encoding: .utf8)
        // Audacious writes its plugin registry at its first run; its output
        // is chosen there.
        let audacious = try ChildProcess("/usr/bin/audacious", ["-H"], environment: environment, log: bus.directory.path + "/audacious-first.log")
        defer { audacious.stop() }
        let registry = config + "/audacious/plugin-registry"
        try await LogindInhibitorTests.eventually(within: .seconds(30)) { await Self.players(on: bus.address).keys.contains { $0.hasSuffix(".audacious") } }
        _ = await OffPool.run {
            try? DBusClient.connect(to: .address(bus.address), until: .now + .seconds(10)).call("Quit", of: MediaPlayer.appInterface, at: MediaPlayer.objectPath, on: "org.mpris.MediaPlayer2.audacious", until: .now + .seconds(10))
        }
        _ = await audacious.terminated()
        var output: String?
        let lines = try String(contentsOfFile: registry, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            if line.hasPrefix("output ") { output = String(line.split(separator: " ").last ?? "") }
            else if line.split(separator: " ").first.map({ ["general", "iface", "input", "effect", "transport", "playlist", "vis"].contains(String($0)) }) == true { output = nil }
            guard line.hasPrefix("enabled "), let current = output else { return String(line) }
            return current.hasSuffix("/sdlout.so") ? "enabled 1" : "enabled 0"
        }
        try lines.joined(separator: "\n").write(toFile: registry, atomically: true, encoding: .utf8)
    }

    /// Every MPRIS player on the bus at `address`, by its name.
    static func players(on address: String) async -> [String: MediaPlayerState] {
        await OffPool.run {
            guard let bus = try? DBusClient.connect(to: .address(address), until: .now + .seconds(10)) else { return [:] }
            defer { bus.close() }
            var found: [String: MediaPlayerState] = [:]
            for player in (try? MediaPlayer.all(on: bus, until: .now + .seconds(10))) ?? [] {
                if let state = try? player.state(on: bus, until: .now + .seconds(5)) { found[player.name.busName] = state }
            }
            return found
        }
    }

    /// Calls `member` of the player interface of `name`.
    static func call(_ member: String, _ arguments: [DBusValue] = [], on name: String, address: String) async throws {
        let result = await OffPool.run { () -> Result<Void, DBusError> in
            Result { () throws(DBusError) in
                let bus = try DBusClient.connect(to: .address(address), until: .now + .seconds(10))
                defer { bus.close() }
                _ = try bus.call(member, of: MediaPlayer.playerInterface, at: MediaPlayer.objectPath, on: name, arguments: arguments, until: .now + .seconds(10))
            }
        }
        try result.get()
    }

    /// The processes of `program` started with the test's configuration.
    static func processes(of program: String, config: String) -> [Int32] {
        ProcProcess.all().filter { pid in
            ProcProcess.executable(of: pid).map { ProgramName.of($0) } == program && ProcProcess.environment(of: pid)["XDG_CONFIG_HOME"] == config
        }
    }

    @Test(
        "mpv paused at 30 s and Audacious playing from 12 s come back after a logout and a login with their files at their positions (within 2 s) and states, each started once; a player that claims mpv's entry from another program is not saved",
        .timeLimit(.minutes(4)),
        arguments: [true, false]
    )
    func playersComeBack(withSessionPlugin: Bool) async throws {
        // The session plugin reopens the user's mpv processes: no other test's may run meanwhile.
        let mpvLock = try await SharedTestLock.acquire("mpv")
        defer { mpvLock.release() }
        let environment = try await DaemonIntegrationTests.Environment.make()
        try environment.addPlugin("MediaPlayersPlugin")
        if withSessionPlugin { try environment.addPlugin("SessionPlugin") }
        let root = environment.bus.directory.path
        let config = environment.configuration
        let applications = root + "/share/applications", media = root + "/media dir"
        for directory in [applications, media] { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let mpvEntry = applications + "/mpv.desktop", audaciousEntry = applications + "/audacious.desktop"
        try "[Desktop Entry]\nType=Application\nName=mpv Media Player\nTryExec=mpv\nExec=mpv --player-operation-mode=pseudo-gui -- %U\nCategories=AudioVideo;Audio;Video;Player;\n"
            .write(toFile: mpvEntry, atomically: true, encoding: .utf8)
        try "[Desktop Entry]\nType=Application\nName=Audacious\nExec=audacious %U\nCategories=AudioVideo;Audio;Player;\n"
            .write(toFile: audaciousEntry, atomically: true, encoding: .utf8)
        let files = [media + "/first $(song).wav", media + "/second 50%.wav"]
        for file in files { try ExampleMpvPluginTests.silence(file, seconds: 120) }
        let display = try VirtualDisplay(log: root + "/xvfb.log")
        var variables = ProcessInfo.processInfo.environment
        variables["XDG_DATA_DIRS"] = root + "/share"
        variables["XDG_DATA_HOME"] = root + "/data-home"
        variables["XDG_CONFIG_HOME"] = config
        variables["DISPLAY"] = display.display
        variables["HOME"] = root
        variables["SDL_AUDIODRIVER"] = "dummy"
        variables["DBUS_SESSION_BUS_ADDRESS"] = environment.bus.address
        variables.removeValue(forKey: "WAYLAND_DISPLAY")
        try await Self.configurePlayers(config: config, bus: environment.bus, environment: variables)
        let manager = try await UserManagerMock.start(on: environment.bus, environment: variables.filter { ["DISPLAY", "HOME", "XDG_CONFIG_HOME", "SDL_AUDIODRIVER", "DBUS_SESSION_BUS_ADDRESS"].contains($0.key) })
        defer { manager.stop() }

        // The user's players, as a desktop's launcher starts them (GIO's variables).
        func launched(_ entry: String, _ command: [String]) throws -> ChildProcess {
            var launch = variables
            launch["GIO_LAUNCHED_DESKTOP_FILE"] = entry
            return try ChildProcess("/bin/sh", ["-c", "export GIO_LAUNCHED_DESKTOP_FILE_PID=$$; exec \"$0\" \"$@\""] + command, environment: launch, log: root + "/\(command[0])-user.log")
        }
        var user = [
            try launched(mpvEntry, ["mpv", "--player-operation-mode=pseudo-gui", "--pause", "--start=30", "--", files[0]]),
            try launched(audaciousEntry, ["audacious", files[1]]),
        ]
        defer { for process in user { process.stop() } }
        // A player that claims mpv's entry but runs another program (python): not saved.
        let impostor = try await DBusMock.start(
            name: "org.mpris.MediaPlayer2.mpv.instance999", arguments: ["--session", "org.mpris.MediaPlayer2.mpv.instance999", MediaPlayer.objectPath, MediaPlayer.appInterface],
            on: environment.bus, log: "impostor.log"
        )
        defer { impostor.stop() }
        try await impostor.setProperty(path: MediaPlayer.objectPath, interface: MediaPlayer.appInterface, name: "DesktopEntry", .string("mpv"))
        try await impostor.setProperty(path: MediaPlayer.objectPath, interface: MediaPlayer.playerInterface, name: "PlaybackStatus", .string("Playing"))
        try await impostor.setProperty(path: MediaPlayer.objectPath, interface: MediaPlayer.playerInterface, name: "Metadata", .properties([("xesam:url", .string("file:///etc/passwd"))]))

        let address = environment.bus.address
        var audaciousName = ""
        try await LogindInhibitorTests.eventually(within: .seconds(60)) {
            let players = await Self.players(on: address)
            audaciousName = players.first { $0.value.desktopEntry == "audacious" && $0.value.status == .playing }?.key ?? ""
            return players.values.contains { $0.desktopEntry == "mpv" && $0.url?.hasSuffix("first%20$(song).wav") == true && abs(($0.position ?? 0) - 30_000_000) < 1_000_000 }
                && !audaciousName.isEmpty
        }
        let track = try #require(await Self.players(on: address)[audaciousName]?.trackID)
        let seeked = ContinuousClock.now
        try await Self.call("SetPosition", [.objectPath(track), .int64(12_000_000)], on: audaciousName, address: address)
        try await LogindInhibitorTests.eventually { (await Self.players(on: address)[audaciousName]?.position ?? 0) >= 12_000_000 }

        // The logout: restored saves (and again as it stops), then the players go.
        let daemon = try environment.startDaemon(log: "restored.log", arguments: ["--autosave-interval", "0"], environment: variables)
        _ = try await environment.waitForNotify("READY=1")
        let admin = try await environment.admin()
        let apps = withSessionPlugin ? [Self.appID, Self.sessionAppID] : [Self.appID]
        #expect(try await admin.call("Save", [.strings(apps)]) == [.uint32(UInt32(apps.count))], "\(environment.log("restored.log"))")
        let archive = try ArchiveStore(directory: FilePath(environment.state)).read(try AppID(Self.appID)).archive
        #expect(Set(archive.objects.map(\.path.description)) == ["Players", "Players/audacious.desktop#1", "Players/mpv.desktop#1"], "\(environment.log("restored.log"))")
        #expect(environment.wholeLog("restored.log").contains("it claims to be mpv.desktop, but its process runs /usr/bin/python3"))
        // mpv stops answering (stopped, as a debugger or a hung decoder
        // leaves it): the next save carries it over from this one.
        kill(user[0].pid, SIGSTOP)
        #expect(try await admin.call("Save", [.strings([Self.appID])]) == [.uint32(1)], "\(environment.log("restored.log"))")
        kill(user[0].pid, SIGCONT)
        let carried = try ArchiveStore(directory: FilePath(environment.state)).read(try AppID(Self.appID)).archive
        #expect(carried.carriedObjects.map(\.path.description) == ["Players/mpv.desktop#1"], "\(environment.log("restored.log"))")
        #expect(carried.objects.count == 3)
        admin.close()
        #expect(await daemon.terminated() == 0, "\(environment.log("restored.log"))")
        // The stop's save was the last: Audacious was saved no further than the time since it was put at 12 s.
        let playedUntilSaved = Double(seeked.duration(to: .now).components.seconds) + 1
        impostor.stop()
        for process in user { process.stop(); _ = await process.terminated() }
        user = []
        #expect(Self.processes(of: "mpv", config: config).isEmpty && Self.processes(of: "audacious", config: config).isEmpty)

        // The login.
        let loginStart = ContinuousClock.now
        let again = try environment.startDaemon(log: "restored-login.log", arguments: ["--autosave-interval", "0"], environment: variables)
        defer { again.stop() }
        var restored: [String: MediaPlayerState] = [:]
        var mpvPlayed = false
        var mpvSeen: [String] = []
        try await LogindInhibitorTests.eventually(within: .seconds(90)) {
            restored = await Self.players(on: address)
            // Saved paused, mpv is never heard: it keeps its pause while it opens its file.
            if let mpv = restored.values.first(where: { $0.desktopEntry == "mpv" }) {
                mpvSeen.append("\(mpv.status?.rawValue ?? "-") \(mpv.position.map { $0 / 100_000 } ?? -1) \(mpv.url?.suffix(12) ?? "-")")
                // (An idle mpv says Playing with no track: nothing is heard.)
                if mpv.status == .playing, mpv.url != nil { mpvPlayed = true }
            }
            let mpv = restored.values.first { $0.desktopEntry == "mpv" }
            let audacious = restored.values.first { $0.desktopEntry == "audacious" }
            return mpv?.url?.hasSuffix("first%20$(song).wav") == true && mpv?.status == .paused
                && audacious?.url?.hasSuffix("second%2050%25.wav") == true && audacious?.status == .playing
                && environment.wholeLog("restored-login.log").contains("restored audacious.desktop#1")
                && environment.wholeLog("restored-login.log").contains("restored mpv.desktop#1")
        }
        let log = environment.wholeLog("restored-login.log")
        let elapsed = Double(loginStart.duration(to: .now).components.seconds) + 1
        let mpv = try #require(restored.values.first { $0.desktopEntry == "mpv" })
        #expect(abs(Double(mpv.position ?? 0) / 1e6 - 30) < 2, "\(log)")
        // Audacious plays on: it is where the save left it, and since then no further than the time gone.
        let audacious = try #require(restored.values.first { $0.desktopEntry == "audacious" })
        let savedLine = try #require(log.split(separator: "\n").first { $0.contains("restored audacious.desktop#1") })
        let savedAt = try #require(Double(String(savedLine.split(separator: " at ").last?.split(separator: " ").first ?? "")))
        #expect(savedAt >= 12 && savedAt <= 12 + playedUntilSaved + 2, "\(savedLine); \(playedUntilSaved) s played until the last save")
        #expect(!mpvPlayed, "mpv played after the restore although it was saved paused: \(mpvSeen)")
        let now = Double(audacious.position ?? 0) / 1e6
        #expect(now >= savedAt - 2 && now <= savedAt + elapsed + 2, "at \(now) s; saved at \(savedAt) s, \(elapsed) s ago")
        // Each started once, by one plugin, without its file on its command line.
        #expect(Self.processes(of: "mpv", config: config).count == 1, "\(log)")
        #expect(Self.processes(of: "audacious", config: config).count == 1, "\(log)")
        let units = try await manager.transientUnits()
        #expect(units.count == 2, "\(units.map(\.command))")
        #expect(!units.contains { $0.command.contains { $0.contains("song") || $0.contains("50%") } }, "\(units.map(\.command))")
        let status = await again.terminated()
        #expect(status == 0, "\(String(environment.wholeLog("restored-login.log").suffix(2500)))")
    }
}
