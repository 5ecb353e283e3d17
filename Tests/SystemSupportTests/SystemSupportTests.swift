import Dispatch
import Glibc
import SystemSupport
import Testing

/// The shared helpers of SystemSupport, on plain values.
@Suite struct SystemSupportTests {
    @Test("A duration as poll's timeout: rounded up to whole milliseconds, 0 when not positive, at most Int32.max")
    func pollMilliseconds() {
        #expect(Duration.zero.pollMilliseconds == 0)
        #expect(Duration.milliseconds(-5).pollMilliseconds == 0)
        #expect(Duration.nanoseconds(1).pollMilliseconds == 1)
        #expect(Duration.milliseconds(1).pollMilliseconds == 1)
        #expect((Duration.milliseconds(1) + .nanoseconds(1)).pollMilliseconds == 2)
        #expect(Duration.seconds(2.5).pollMilliseconds == 2500)
        #expect(Duration.seconds(Int64.max / 2).pollMilliseconds == .max)
    }

    @Test("A duration in a message: seconds to the nearest tenth, 0.0 s when not positive, whole seconds when too long for milliseconds")
    func formattedSeconds() {
        #expect(Duration.seconds(10).formattedSeconds == "10.0 s")
        #expect(Duration.milliseconds(3240).formattedSeconds == "3.2 s")
        #expect(Duration.milliseconds(3250).formattedSeconds == "3.3 s")
        #expect(Duration.milliseconds(49).formattedSeconds == "0.0 s")
        #expect(Duration.zero.formattedSeconds == "0.0 s")
        #expect(Duration.milliseconds(-1500).formattedSeconds == "0.0 s")
        #expect(Duration.seconds(Int64.max / 2).formattedSeconds == "\(Int64.max / 2) s")
    }

    @Test("A program's name is the last component of its path")
    func programNames() {
        #expect(ProgramName.of("/usr/bin/nvim") == "nvim")
        #expect(ProgramName.of("nvim") == "nvim")
        #expect(ProgramName.of("../bin/tmux/") == "tmux")
        #expect(ProgramName.of("") == "")
        #expect(ProgramName.of("/usr/bin/nvim"[...]) == "nvim")
    }

    @Test("Without PATH the fallback search path is used")
    func searchPath() {
        #expect(ExecutableSearchPath.of([:]) == "/usr/local/bin:/usr/bin:/bin")
        #expect(ExecutableSearchPath.of(["PATH": "/opt/bin"]) == "/opt/bin")
    }
}

/// The XDG base directories and option lists, read in one place each.
@Suite struct XDGAndOptionListTests {
    @Test("Absolute variables are used; unset, empty and relative ones fall back to their defaults under HOME")
    func baseDirectories() {
        let set = XDGBaseDirectories(environment: [
            "HOME": "/home/ann", "XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d", "XDG_STATE_HOME": "/s",
            "XDG_CONFIG_DIRS": "/etc/one:relative:/etc/two", "XDG_DATA_DIRS": "/opt/share", "XDG_RUNTIME_DIR": "/run/user/1000",
        ])
        #expect([set.configHome, set.dataHome, set.stateHome] == ["/c", "/d", "/s"])
        #expect(set.configDirectories == ["/etc/one", "/etc/two"])
        #expect(set.dataDirectories == ["/opt/share"])
        #expect(set.runtimeDirectory == "/run/user/1000")
        let unset = XDGBaseDirectories(environment: [
            "HOME": "/home/ann/", "XDG_CONFIG_HOME": "", "XDG_DATA_HOME": "relative", "XDG_CONFIG_DIRS": "", "XDG_DATA_DIRS": "only:relative",
            "XDG_RUNTIME_DIR": "run",
        ])
        #expect([unset.configHome, unset.dataHome, unset.stateHome] == ["/home/ann/.config", "/home/ann/.local/share", "/home/ann/.local/state"])
        #expect(unset.configDirectories == ["/etc/xdg"])
        #expect(unset.dataDirectories == ["/usr/local/share", "/usr/share"])
        #expect(unset.runtimeDirectory == nil)
    }

    @Test("A relative or missing HOME is the password database's home, never the current directory")
    func home() {
        let home = XDGBaseDirectories(environment: ["HOME": "relative"]).home
        #expect(home.hasPrefix("/"))
        #expect(XDGBaseDirectories(environment: [:]).home == home)
    }

    @Test("Option lists split on commas, spaces, tabs and newlines alike, dropping empty names")
    func optionLists() {
        #expect(OptionList.names("less, man\t+ssh\n,,htop ") == ["less", "man", "+ssh", "htop"])
        #expect(OptionList.names(nil) == [])
        #expect(OptionList.names(" , ") == [])
    }

    @Test("A yes-or-no option is on for true, yes, on and 1 in any case and spacing; anything else, or none, is off")
    func yesOrNoOptions() {
        for on in ["true", "Yes", " ON ", "1"] { #expect(OptionList.isOn(on), "\(on)") }
        for off in [nil, "", "no", "false", "0", "yess", "2"] { #expect(!OptionList.isOn(off), "\(off ?? "nil")") }
    }
}

@Suite struct OffPoolTests {
    struct Refused: Error, Equatable {}

    @Test("Work run off the cooperative pool returns its value, or throws its own error type; many blocking at once do not starve the pool (more than it has threads, each waiting for all)")
    func offPool() async throws {
        #expect(await OffPool.run { 6 * 7 } == 42)
        await #expect(throws: Refused.self) { try await OffPool.run { () throws(Refused) -> Int in throw Refused() } }
        // Each blocks until every one has started: on the cooperative pool
        // (as many threads as cores) they would wait forever.
        let count = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) + 2
        let started = DispatchGroup()
        for _ in 0 ..< count { started.enter() }
        let finished = await withTaskGroup(of: Bool.self) { group in
            for _ in 0 ..< count {
                group.addTask {
                    await OffPool.run {
                        started.leave()
                        return started.wait(timeout: .now() + .seconds(30)) == .success
                    }
                }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(finished == count)
    }
}
