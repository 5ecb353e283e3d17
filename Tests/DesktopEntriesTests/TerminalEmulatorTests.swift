import AppLaunching
import Testing

/// Each terminal's own way to start in a directory, and with tabs.
@Suite struct TerminalEmulatorTests {
    @Test("Known terminals by desktop id or executable; directories through each one's option, tabs in one process where it can")
    func launches() throws {
        let directories = ["/home/u/a b", "/srv/$(x)"]
        let gnome = try #require(TerminalEmulator.find(desktopID: "org.gnome.Terminal.desktop", executable: nil))
        #expect(gnome.launches(directories: directories).map(\.arguments) == [["--window", "--working-directory=/home/u/a b", "--tab", "--working-directory=/srv/$(x)"]])
        let konsole = try #require(TerminalEmulator.find(desktopID: "other.desktop", executable: "/usr/bin/konsole"))
        #expect(konsole.launches(directories: directories).map(\.arguments) == [["--workdir", "/home/u/a b"], ["--workdir", "/srv/$(x)"]])
        let wezterm = try #require(TerminalEmulator.find(desktopID: "org.wezfurlong.wezterm.desktop", executable: nil))
        #expect(wezterm.launches(directories: ["/a"]).map(\.arguments) == [["start", "--cwd", "/a"]])
        let xterm = try #require(TerminalEmulator.find(desktopID: "debian-xterm.desktop", executable: nil))
        #expect(xterm.launches(directories: directories).map(\.directory) == directories)
        #expect(xterm.launches(directories: directories).allSatisfy { $0.arguments.isEmpty })
        #expect(TerminalEmulator.find(desktopID: "org.gnome.gedit.desktop", executable: "/usr/bin/gedit") == nil)
        #expect(gnome.launches(directories: []).isEmpty)
        // Its options go to its own program only, never to a wrapper.
        #expect(gnome.accepts(program: "/usr/bin/gnome-terminal") && !gnome.accepts(program: "flatpak"))
        #expect(TerminalEmulator.find(desktopID: "x.desktop", executable: "/usr/libexec/gnome-terminal-server") == gnome)
        // Windows of tabs in one command line, where the terminal has both options.
        #expect(gnome.launch(windows: [["/a", "/b"], ["/c"]])?.arguments == [
            "--window", "--working-directory=/a", "--tab", "--working-directory=/b", "--window", "--working-directory=/c",
        ])
        #expect(gnome.launch(windows: [["/a"], []]) == nil)
        #expect(konsole.launch(windows: [["/a"], ["/b"]]) == nil)
    }

    @Test("Ptyxis: each window a standalone process of its own in its directory (its shared instance would restore its own older session first, and a tab would join the focused window), a program after --")
    func ptyxis() throws {
        let ptyxis = try #require(TerminalEmulator.find(desktopID: "org.gnome.Ptyxis.desktop", executable: nil))
        #expect(TerminalEmulator.find(desktopID: "x.desktop", executable: "/usr/bin/ptyxis") == ptyxis)
        #expect(ptyxis.launches(directories: ["/home/u/a b", "/srv/$(x)"]).map(\.arguments) == [
            ["--standalone", "--new-window", "--working-directory=/home/u/a b"], ["--standalone", "--new-window", "--working-directory=/srv/$(x)"],
        ])
        #expect(ptyxis.launch(directory: "/a", running: ["/bin/sh", "/run/x"]).arguments == ["--standalone", "--new-window", "--working-directory=/a", "--", "/bin/sh", "/run/x"])
        #expect(ptyxis.accepts(program: "/usr/bin/ptyxis") && !ptyxis.accepts(program: "flatpak"))
    }
}
