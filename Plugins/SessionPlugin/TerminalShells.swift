import ProcFiles
import TmuxControl

/// The shells a terminal emulator shows: one per window or tab, the first
/// shells below its process (a shell started from a shell is the same
/// window), with the directory each is in (`/proc/PID/cwd`) and whether it
/// runs a tmux client (that window is the tmux plugin's).
struct TerminalShells {
    /// The directories of the windows that showed a shell, in the order the shells started.
    var directories: [String] = []
    /// How many windows ran tmux.
    var tmuxWindows = 0

    /// Shells as an archive held them.
    init(directories: [String], tmuxWindows: Int) {
        self.directories = directories
        self.tmuxWindows = tmuxWindows
    }

    /// The shells below process `pid`.
    init(of pid: Int32, proc: String = "/proc") {
        var queue = ProcProcess.children(of: pid, proc: proc)
        var shells: [(start: UInt64, pid: Int32)] = []
        while !queue.isEmpty {
            let child = queue.removeFirst()
            guard let first = ProcProcess.commandLine(of: child, proc: proc)?.first else { continue }
            let name = ForegroundProgram.baseName(first)
            if ForegroundProgram.shells.contains(name) {
                shells.append((ProcProcess.startTime(of: child, proc: proc), child))
            } else if name == "tmux" {
                // A window running tmux itself (`kitty tmux`, `alacritty -e tmux`).
                tmuxWindows += 1
            } else {
                // A terminal's helper process (gnome-terminal-server's own children, a multiplexing server): look below it.
                queue += ProcProcess.children(of: child, proc: proc)
            }
        }
        for shell in shells.sorted(by: { ($0.start, $0.pid) < ($1.start, $1.pid) }) {
            if let program = ForegroundProgram.of(panePID: shell.pid, proc: proc), ForegroundProgram.baseName(program.arguments.first ?? "") == "tmux" {
                tmuxWindows += 1
            } else if let directory = ProcProcess.directory(of: shell.pid, proc: proc) {
                directories.append(directory)
            }
        }
    }
}
