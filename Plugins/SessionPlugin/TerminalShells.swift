import NeovimControl
import NeovimState
import RestorationKit
import SavedText
import ProcFiles
import TmuxControl

/// The windows of a terminal emulator: one per shell, the first shells
/// below its process (a shell started from a shell is the same window),
/// each with the directory it is in (`/proc/PID/cwd`) and the program it
/// shows, when it shows one (its terminal's foreground job: `less`, `ssh`,
/// `nvim`), and a window running a tmux client counted apart (that window
/// is the tmux plugin's).
struct TerminalShells {
    /// One window's shell.
    struct Shell: Hashable {
        /// Its working directory.
        var directory: String
        /// The program it showed, its arguments filtered by the allow-list
        /// (``ProgramPolicy``); nil for a shell at its prompt.
        var program: [String]?
        /// The state of that program when it is a Neovim that answered.
        var editor: NeovimSession?

        /// The value stored in the archive.
        var stateValue: StateValue {
            var fields: [String: StateValue] = ["directory": .string(directory)]
            if let program { fields["program"] = .array(program.map { .string($0) }) }
            if let editor { fields["nvim"] = .dictionary(editor.stateFields) }
            return .dictionary(fields)
        }

        /// A shell as ``stateValue`` stored it (untrusted): nil when its
        /// directory is no plain absolute path; its program goes through
        /// `policy` again (R16), and a Neovim state that does not read is
        /// dropped, each with a line in `problems`.
        init?(stateValue value: StateValue, policy: ProgramPolicy, problems: inout [String]) {
            guard case .dictionary(let fields) = value, case .string(let directory)? = fields["directory"], SavedText.isPlainAbsolutePath(directory) else { return nil }
            self.directory = directory
            if case .array(let arguments)? = fields["program"] {
                let strings = arguments.compactMap(String.init(stateValue:))
                program = strings.count == arguments.count ? policy.command(for: strings) : nil
                if program == nil, let name = strings.first { problems.append("\(name) is not on the allow-list: the window gets a shell") }
            }
            if program != nil, case .dictionary(let editor)? = fields["nvim"] {
                do {
                    self.editor = try NeovimSession(stateFields: editor)
                } catch {
                    problems.append("the saved Neovim state cannot be read (\(error)); nvim starts as it was")
                }
            }
        }

        /// The shell of a window in `directory` whose foreground job is
        /// `foreground` (nil: the shell at its prompt): the program as
        /// `policy` keeps it, and a Neovim's state read by `readEditor`.
        /// Nil for a window running tmux, which is the tmux plugin's.
        init?(directory: String, foreground: ForegroundProgram?, policy: ProgramPolicy, readEditor: (ForegroundProgram) -> NeovimSession?) {
            if let foreground, ForegroundProgram.baseName(foreground.arguments.first ?? "") == "tmux" { return nil }
            let program = foreground.flatMap { policy.command(for: $0.arguments) }
            self.init(directory: directory, program: program, editor: program != nil ? foreground.flatMap(readEditor) : nil)
        }

        /// A shell.
        init(directory: String, program: [String]? = nil, editor: NeovimSession? = nil) {
            self.directory = directory
            self.program = program
            self.editor = editor
        }
    }

    /// The windows that showed a shell, in the order the shells started.
    var shells: [Shell] = []
    /// How many windows ran tmux.
    var tmuxWindows = 0
    /// kitty's own OS windows, tabs and layouts, when it answers its remote control.
    var kitty: KittyLayout?

    /// The directories of the windows, in order.
    var directories: [String] { shells.map(\.directory) }

    /// Shells as an archive held them.
    init(shells: [Shell], tmuxWindows: Int, kitty: KittyLayout? = nil) {
        self.shells = shells
        self.tmuxWindows = tmuxWindows
        self.kitty = kitty
    }

    /// The shells below process `pid`; each window's program kept as
    /// `policy` allows, and a Neovim's state read by `readEditor`.
    init(of pid: Int32, policy: ProgramPolicy = ProgramPolicy(), readEditor: (ForegroundProgram) -> NeovimSession? = { _ in nil }, proc: String = "/proc") {
        var queue = ProcProcess.children(of: pid, proc: proc)
        var found: [(start: UInt64, pid: Int32)] = []
        while !queue.isEmpty {
            let child = queue.removeFirst()
            guard let first = ProcProcess.commandLine(of: child, proc: proc)?.first else { continue }
            let name = ForegroundProgram.baseName(first)
            if ForegroundProgram.shells.contains(name) {
                found.append((ProcProcess.startTime(of: child, proc: proc), child))
            } else if name == "tmux" {
                // A window running tmux itself (`kitty tmux`, `alacritty -e tmux`).
                tmuxWindows += 1
            } else {
                // A terminal's helper process (gnome-terminal-server's own children, a multiplexing server): look below it.
                queue += ProcProcess.children(of: child, proc: proc)
            }
        }
        for shell in found.sorted(by: { ($0.start, $0.pid) < ($1.start, $1.pid) }) {
            guard let directory = ProcProcess.directory(of: shell.pid, proc: proc) else { continue }
            let foreground = ForegroundProgram.of(panePID: shell.pid, proc: proc)
            if let shell = Shell(directory: directory, foreground: foreground, policy: policy, readEditor: readEditor) {
                shells.append(shell)
            } else {
                tmuxWindows += 1
            }
        }
    }
}
