/// The terminal emulators whose windows come back in the directories of the
/// shells they showed, each through its own command-line option, with its
/// tabs where it can open tabs from its command line.
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

    /// Its executable's name.
    public var executable: String
    /// The desktop ids it is installed under.
    public var desktopIDs: Set<String>
    /// How a directory reaches it.
    public var directoryOption: DirectoryOption
    /// Arguments before the directory (`wezterm start`).
    public var prefix: [String]
    /// The option that opens one more tab, when it can open several tabs in
    /// one command (`--tab`); nil: one process per window.
    public var tabOption: String?

    /// The known terminal emulators.
    public static let known: [TerminalEmulator] = [
        TerminalEmulator(executable: "gnome-terminal", desktopIDs: ["org.gnome.Terminal.desktop", "gnome-terminal.desktop"], directoryOption: .joined("--working-directory="), prefix: [], tabOption: "--tab"),
        TerminalEmulator(executable: "gnome-terminal-server", desktopIDs: [], directoryOption: .joined("--working-directory="), prefix: [], tabOption: "--tab"),
        TerminalEmulator(executable: "kgx", desktopIDs: ["org.gnome.Console.desktop"], directoryOption: .joined("--working-directory="), prefix: [], tabOption: nil),
        TerminalEmulator(executable: "konsole", desktopIDs: ["org.kde.konsole.desktop", "konsole.desktop"], directoryOption: .separate("--workdir"), prefix: [], tabOption: nil),
        TerminalEmulator(executable: "xfce4-terminal", desktopIDs: ["xfce4-terminal.desktop"], directoryOption: .joined("--working-directory="), prefix: [], tabOption: "--tab"),
        TerminalEmulator(executable: "kitty", desktopIDs: ["kitty.desktop"], directoryOption: .separate("--directory"), prefix: [], tabOption: nil),
        TerminalEmulator(executable: "alacritty", desktopIDs: ["Alacritty.desktop", "alacritty.desktop"], directoryOption: .separate("--working-directory"), prefix: [], tabOption: nil),
        TerminalEmulator(executable: "foot", desktopIDs: ["foot.desktop", "org.codeberg.dnkl.foot.desktop"], directoryOption: .joined("--working-directory="), prefix: [], tabOption: nil),
        TerminalEmulator(executable: "wezterm-gui", desktopIDs: ["org.wezfurlong.wezterm.desktop"], directoryOption: .separate("--cwd"), prefix: ["start"], tabOption: nil),
        TerminalEmulator(executable: "ghostty", desktopIDs: ["com.mitchellh.ghostty.desktop"], directoryOption: .joined("--working-directory="), prefix: [], tabOption: nil),
        TerminalEmulator(executable: "tilix", desktopIDs: ["com.gexperts.Tilix.desktop"], directoryOption: .joined("--working-directory="), prefix: [], tabOption: nil),
        TerminalEmulator(executable: "xterm", desktopIDs: ["xterm.desktop", "debian-xterm.desktop", "debian-uxterm.desktop"], directoryOption: .startDirectory, prefix: [], tabOption: nil),
    ]

    /// The terminal of desktop id `desktopID` or executable `executable`.
    public static func find(desktopID: String, executable: String?) -> TerminalEmulator? {
        let name = executable.flatMap { $0.split(separator: "/").last.map(String.init) }
        return known.first { $0.desktopIDs.contains(desktopID) } ?? known.first { $0.executable == name }
    }

    /// The launches that reopen windows showing shells in `directories`:
    /// each an argument list after the program, and the directory to start
    /// in. All of them in one launch when the terminal opens tabs.
    public func launches(directories: [String]) -> [(arguments: [String], directory: String)] {
        guard let first = directories.first else { return [] }
        func option(_ directory: String) -> [String] {
            switch directoryOption {
            case .joined(let name): return [name + directory]
            case .separate(let name): return [name, directory]
            case .startDirectory: return []
            }
        }
        if let tabOption, directories.count > 1 {
            return [(prefix + option(first) + directories.dropFirst().flatMap { [tabOption] + option($0) }, first)]
        }
        return directories.map { (prefix + option($0), $0) }
    }
}
