import SystemSupport
/// The terminal emulators whose windows come back in the directories of the
/// shells they showed, each through its own command-line option, with its
/// tabs where it can open tabs from its command line.
///
/// Ptyxis restores a session of its own at the first command line its
/// shared instance handles (`restore-session`, on by default): the tabs it
/// had when its last window was last closed, which a session's end does
/// not write (it ends Ptyxis by a signal). A window restored opens through
/// that instance would come back beside that older session, and a tab
/// would join whichever window was focused. So each of its windows comes
/// back as a process of its own (`--standalone --new-window`), which
/// restores nothing of Ptyxis's and opens one window in its directory;
/// its tabs come back as windows of their own.
public struct TerminalEmulator: Hashable, Sendable {
    /// How a directory reaches it.
    public enum DirectoryOption: Hashable, Sendable {
        /// `--working-directory=DIR` and the like: one argument.
        case joined(String)
        /// `--workdir DIR` and the like: two arguments.
        case separate(String)
        /// None: it starts its shell where it is started (the unit's
        /// working directory).
        case startDirectory
    }

    /// Its running executable's name.
    public var executable: String
    /// The names the program of its desktop entry's `Exec` goes by: its
    /// options are given only to that program (never to a wrapper such as
    /// `flatpak` or `env`).
    public var programs: Set<String>
    /// The desktop ids it is installed under.
    public var desktopIDs: Set<String>
    /// How a directory reaches it.
    public var directoryOption: DirectoryOption
    /// Arguments before the directory (`wezterm start`).
    public var prefix: [String]
    /// The option that opens one more tab, when it can open several tabs in
    /// one command (`--tab`); nil: one process per window.
    public var tabOption: String?
    /// The option that opens the first window, before its directory, when
    /// a directory given before any window would not be its (GNOME Terminal).
    public var windowOption: String?
    /// What comes before a command the window runs instead of the user's
    /// shell (`-e`, `--`, or nothing where the command is what follows the
    /// options).
    public var commandOption: [String] = []

    /// The known terminal emulators.
    public static let known: [TerminalEmulator] = knownWithoutCommands.map { terminal in
        var terminal = terminal
        terminal.commandOption = commandOptions[terminal.executable] ?? ["-e"]
        return terminal
    }

    /// How each known terminal takes a command, by executable: each says
    /// so in its manual page.
    private static let commandOptions: [String: [String]] = [
        "gnome-terminal-server": ["--"], "kgx": ["--"], "konsole": ["-e"], "xfce4-terminal": ["-x"], "kitty": [], "alacritty": ["-e"],
        "foot": [], "wezterm-gui": ["--"], "ghostty": ["-e"], "tilix": ["-e"], "xterm": ["-e"], "ptyxis": ["--"],
    ]

    private static let knownWithoutCommands: [TerminalEmulator] = [
        TerminalEmulator(executable: "gnome-terminal-server", programs: ["gnome-terminal"], desktopIDs: ["org.gnome.Terminal.desktop", "gnome-terminal.desktop"], directoryOption: .joined("--working-directory="), prefix: [], tabOption: "--tab", windowOption: "--window"),
        TerminalEmulator(executable: "kgx", programs: ["kgx"], desktopIDs: ["org.gnome.Console.desktop"], directoryOption: .joined("--working-directory="), prefix: [], tabOption: nil, windowOption: nil),
        TerminalEmulator(executable: "ptyxis", programs: ["ptyxis"], desktopIDs: ["org.gnome.Ptyxis.desktop", "app.devsuite.Ptyxis.desktop"], directoryOption: .joined("--working-directory="), prefix: ["--standalone", "--new-window"], tabOption: nil, windowOption: nil),
        TerminalEmulator(executable: "konsole", programs: ["konsole"], desktopIDs: ["org.kde.konsole.desktop", "konsole.desktop"], directoryOption: .separate("--workdir"), prefix: [], tabOption: nil, windowOption: nil),
        TerminalEmulator(executable: "xfce4-terminal", programs: ["xfce4-terminal"], desktopIDs: ["xfce4-terminal.desktop"], directoryOption: .joined("--working-directory="), prefix: [], tabOption: "--tab", windowOption: "--window"),
        TerminalEmulator(executable: "kitty", programs: ["kitty"], desktopIDs: ["kitty.desktop"], directoryOption: .separate("--directory"), prefix: [], tabOption: nil, windowOption: nil),
        TerminalEmulator(executable: "alacritty", programs: ["alacritty"], desktopIDs: ["Alacritty.desktop", "alacritty.desktop"], directoryOption: .separate("--working-directory"), prefix: [], tabOption: nil, windowOption: nil),
        TerminalEmulator(executable: "foot", programs: ["foot"], desktopIDs: ["foot.desktop", "org.codeberg.dnkl.foot.desktop"], directoryOption: .joined("--working-directory="), prefix: [], tabOption: nil, windowOption: nil),
        TerminalEmulator(executable: "wezterm-gui", programs: ["wezterm"], desktopIDs: ["org.wezfurlong.wezterm.desktop"], directoryOption: .separate("--cwd"), prefix: ["start"], tabOption: nil, windowOption: nil),
        TerminalEmulator(executable: "ghostty", programs: ["ghostty"], desktopIDs: ["com.mitchellh.ghostty.desktop"], directoryOption: .joined("--working-directory="), prefix: [], tabOption: nil, windowOption: nil),
        TerminalEmulator(executable: "tilix", programs: ["tilix"], desktopIDs: ["com.gexperts.Tilix.desktop"], directoryOption: .joined("--working-directory="), prefix: [], tabOption: nil, windowOption: nil),
        TerminalEmulator(executable: "xterm", programs: ["xterm", "uxterm"], desktopIDs: ["xterm.desktop", "debian-xterm.desktop", "debian-uxterm.desktop"], directoryOption: .startDirectory, prefix: [], tabOption: nil, windowOption: nil),
    ]

    /// The terminal of desktop id `desktopID` or of the running executable
    /// or entry program `executable`.
    public static func find(desktopID: String, executable: String?) -> TerminalEmulator? {
        let name = executable.map(ProgramName.of)
        return known.first { $0.desktopIDs.contains(desktopID) } ?? known.first { $0.executable == name || name.map($0.programs.contains) == true }
    }

    /// Whether `program` (an entry's `Exec` program) is this terminal's own,
    /// so that its options may be given to it.
    public func accepts(program: String) -> Bool {
        programs.contains(ProgramName.of(program))
    }

    /// The launches that reopen windows showing shells in `directories`:
    /// each an argument list after the program, and the directory to start
    /// in. All of them in one launch when the terminal opens tabs.
    public func launches(directories: [String]) -> [(arguments: [String], directory: String)] {
        guard let first = directories.first else { return [] }
        if let tabOption, directories.count > 1 {
            let window = windowOption.map { [$0] } ?? []
            return [(prefix + window + directoryArguments(first) + directories.dropFirst().flatMap { [tabOption] + directoryArguments($0) }, first)]
        }
        return directories.map { (prefix + directoryArguments($0), $0) }
    }

    /// The launch that reopens windows of tabs, each window the shells'
    /// directories of one element of `windows`, in one process: nil where
    /// the terminal cannot open several windows of tabs from one command
    /// line (it needs a window option and a tab option).
    public func launch(windows: [[String]]) -> (arguments: [String], directory: String)? {
        guard let tabOption, let windowOption, let first = windows.first?.first, windows.allSatisfy({ !$0.isEmpty }) else { return nil }
        let arguments = windows.flatMap { tabs in
            [windowOption] + directoryArguments(tabs[0]) + tabs.dropFirst().flatMap { [tabOption] + directoryArguments($0) }
        }
        return (prefix + arguments, first)
    }

    /// The launch that reopens one window in `directory` running `command`
    /// (`/bin/sh SCRIPT`) instead of the user's shell.
    public func launch(directory: String, running command: [String]) -> (arguments: [String], directory: String) {
        let window = tabOption != nil ? (windowOption.map { [$0] } ?? []) : []
        return (prefix + window + directoryArguments(directory) + commandOption + command, directory)
    }

    /// How `directory` reaches it.
    private func directoryArguments(_ directory: String) -> [String] {
        switch directoryOption {
        case .joined(let name): [name + directory]
        case .separate(let name): [name, directory]
        case .startDirectory: []
        }
    }
}
