import NeovimControl
import NeovimState
import RestorationKit
import SavedText
import ProcFiles
import TerminalPrograms

/// The windows of a terminal emulator: one per shell, the first shells
/// below its process (a shell started from a shell is the same window),
/// each with the directory it is in (`/proc/PID/cwd`) and the program it
/// shows, when it shows one (its terminal's foreground job: `less`, `ssh`,
/// `nvim`), and a window running a tmux client counted apart (that window
/// is the tmux plugin's). A window the terminal started with a program and
/// no shell (`foot nvim FILE`, every `Terminal=true` entry) is one too: the
/// first process of its terminal (the leader of a session with a terminal),
/// its program that process, kept ``Shell/alone``.
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
        /// The window ran its program alone, with no shell: it closes when
        /// the program quits, and it comes back so.
        var alone = false

        /// The value stored in the archive.
        var stateValue: StateValue {
            var fields: [String: StateValue] = ["directory": .string(directory)]
            if let program { fields["program"] = .array(program.map { .string($0) }) }
            if let editor { fields["nvim"] = .dictionary(editor.stateFields) }
            if alone && program != nil { fields["alone"] = .bool(true) }
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
            // A window of a program the allow-list refuses gets a shell.
            if program != nil, case .bool(true)? = fields["alone"] { alone = true }
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
        init?(directory: String, foreground: ForegroundProgram?, alone: Bool = false, policy: ProgramPolicy, readEditor: (ForegroundProgram) -> NeovimSession?) {
            if let foreground, ForegroundProgram.baseName(foreground.arguments.first ?? "") == "tmux" { return nil }
            let program = foreground.flatMap { policy.command(for: $0.arguments) }
            self.init(directory: directory, program: program, editor: program != nil ? foreground.flatMap(readEditor) : nil, alone: alone && program != nil)
        }

        /// A shell.
        init(directory: String, program: [String]? = nil, editor: NeovimSession? = nil, alone: Bool = false) {
            self.directory = directory
            self.program = program
            self.editor = editor
            self.alone = alone
        }
    }

    /// The windows that showed a shell, in the order the shells started.
    var shells: [Shell] = []
    /// The process of each of ``shells`` (the window's first process),
    /// when read from a running terminal; empty when read from an archive.
    var pids: [Int32] = []
    /// How many of ``shells`` each window holds, in the order of the
    /// instance's saved windows, where the terminal holds several windows
    /// of tabs in one process and they could be told apart
    /// (``GnomeTerminalTabs``); nil: all of them in one window.
    var windowTabs: [Int]?
    /// How many windows ran tmux.
    var tmuxWindows = 0
    /// kitty's own OS windows, tabs and layouts, when it answers its remote control.
    var kitty: KittyLayout?

    /// The directories of the windows, in order.
    var directories: [String] { shells.map(\.directory) }

    /// Shells as an archive held them.
    init(shells: [Shell], tmuxWindows: Int, kitty: KittyLayout? = nil, windowTabs: [Int]? = nil) {
        self.shells = shells
        self.tmuxWindows = tmuxWindows
        self.kitty = kitty
        self.windowTabs = windowTabs
    }

    /// ``shells`` window by window, when ``windowTabs`` holds them all in
    /// `windows` windows: nil otherwise.
    func byWindow(windows: Int) -> [[Shell]]? {
        // (An archive's counts, untrusted: each within the shells before they are added.)
        guard let windowTabs, windowTabs.count == windows, windowTabs.allSatisfy({ $0 > 0 && $0 <= shells.count }),
              windowTabs.reduce(0, +) == shells.count
        else { return nil }
        var start = 0
        return windowTabs.map { count in
            defer { start += count }
            return Array(shells[start ..< start + count])
        }
    }

    /// The shells below process `pid`; each window's program kept as
    /// `policy` allows, and a Neovim's state read by `readEditor`.
    init(of pid: Int32, policy: ProgramPolicy = ProgramPolicy(), readEditor: (ForegroundProgram) -> NeovimSession? = { _ in nil }, proc: String = "/proc") {
        var queue = ProcProcess.children(of: pid, proc: proc)
        // Each window's first process, and what it runs: a shell (its
        // foreground job the program), or a program alone (itself, or the
        // job of the one-use script a restore started it with).
        // (`program`: the arguments of a program that is the window's first process itself.)
        var found: [(start: UInt64, pid: Int32, alone: Bool, program: [String]?)] = []
        while !queue.isEmpty {
            let child = queue.removeFirst()
            guard let arguments = ProcProcess.commandLine(of: child, proc: proc), let first = arguments.first else { continue }
            let name = ForegroundProgram.baseName(first)
            if ForegroundProgram.shells.contains(name) {
                found.append((ProcProcess.startTime(of: child, proc: proc), child, ProgramScript.isCommandScript(arguments), nil))
            } else if name == "tmux" {
                // A window running tmux itself (`kitty tmux`, `alacritty -e tmux`).
                tmuxWindows += 1
            } else if Self.leadsTerminalSession(child, proc: proc) {
                // A window started with a program, no shell (`foot nvim FILE`).
                found.append((ProcProcess.startTime(of: child, proc: proc), child, true, arguments))
            } else {
                // A terminal's helper process (gnome-terminal-server's own children, a multiplexing server): look below it.
                queue += ProcProcess.children(of: child, proc: proc)
            }
        }
        for window in found.sorted(by: { ($0.start, $0.pid) < ($1.start, $1.pid) }) {
            guard let directory = ProcProcess.directory(of: window.pid, proc: proc) else { continue }
            let foreground = window.program.map { ForegroundProgram(arguments: $0, pid: window.pid) } ?? ForegroundProgram.of(panePID: window.pid, proc: proc)
            if let shell = Shell(directory: directory, foreground: foreground, alone: window.alone, policy: policy, readEditor: readEditor) {
                shells.append(shell)
                pids.append(window.pid)
            } else {
                tmuxWindows += 1
            }
        }
    }

    /// Whether `pid` leads a session with a controlling terminal: the first
    /// process a terminal emulator starts in a window (it makes the window's
    /// terminal its controlling one in a session of its own), unlike a
    /// helper process of the emulator.
    static func leadsTerminalSession(_ pid: Int32, proc: String = "/proc") -> Bool {
        guard let fields = ProcProcess.statFields(of: pid, proc: proc), fields.count > 4 else { return false }
        return Int32(fields[3]) == pid && fields[4] != "0"
    }
}
