import FoundationEssentials
import ProcFiles
import SystemSupport

/// The program a pane shows: the leader of its terminal's foreground process
/// group, read from `/proc` (a shell waiting at its prompt shows none).
public struct ForegroundProgram: Hashable, Sendable {
    /// The program's arguments, its name first, as it was started.
    public var arguments: [String]
    /// Its pid.
    public var pid: Int32

    /// A program with these arguments and pid.
    public init(arguments: [String], pid: Int32) {
        self.arguments = arguments
        self.pid = pid
    }

    /// The shells a pane may run at its prompt.
    public static let shells: Set<String> = ["bash", "zsh", "fish", "sh", "dash", "ksh", "mksh", "tcsh", "csh", "yash", "nu", "elvish", "xonsh"]

    /// The foreground program of the pane whose first process is `panePID`,
    /// or nil when a shell is in the foreground (or the process is gone).
    public static func of(panePID: Int32, proc: String = "/proc") -> ForegroundProgram? {
        // tpgid: the terminal's foreground process group.
        guard let fields = ProcProcess.statFields(of: panePID, proc: proc), fields.count > 5, let foreground = Int32(fields[5]) else { return nil }
        let leader = foreground > 0 ? foreground : panePID
        guard let arguments = ProcProcess.commandLine(of: leader, proc: proc), let name = arguments.first else { return nil }
        // A shell in the foreground (the pane's own at its prompt, a nested
        // one, or a job's child for the instant before it runs its program)
        // is no program: the restored pane gets a shell anyway.
        if shells.contains(baseName(name)) { return nil }
        return ForegroundProgram(arguments: arguments, pid: leader)
    }

    /// The name a program goes by: the last component of its `argv[0]`,
    /// without a login shell's leading `-`.
    public static func baseName(_ argument: String) -> String {
        let last = ProgramName.of(argument)
        return last.hasPrefix("-") ? String(last.dropFirst()) : last
    }
}
