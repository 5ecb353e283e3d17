import FoundationEssentials
import ProcessSpawning
public import SystemPackage
import SystemSupport

/// Runs tmux commands against one server (`tmux -S SOCKET ...`).
///
/// Each call is one tmux client process; several commands go in one call
/// separated by `;` arguments, as tmux's command sequences are. A call that
/// has not ended after ``timeout`` is killed: a tmux server that does not
/// answer must not hold up a save.
public struct TmuxRunner: Sendable {
    /// The tmux executable.
    public var executable: FilePath
    /// The server's socket.
    public var socket: FilePath
    /// How long one call may take.
    public var timeout: Duration
    /// The client's environment: a server it starts gets it (and its
    /// panes their `SHELL`).
    public var environment: [String: String]

    /// A runner of the tmux found in `environment`'s `PATH`, or nil when
    /// tmux is not installed.
    public init?(socket: FilePath, environment: [String: String], timeout: Duration = .seconds(5)) {
        let path = ExecutableSearchPath.of(environment)
        guard let found = ExecutableSearchPath.executable(named: "tmux", in: path) else { return nil }
        self.executable = FilePath(found)
        self.socket = socket
        self.timeout = timeout
        self.environment = environment
    }

    /// A runner of `executable`.
    public init(executable: FilePath, socket: FilePath, environment: [String: String], timeout: Duration = .seconds(5)) {
        self.executable = executable
        self.socket = socket
        self.environment = environment
        self.timeout = timeout
    }

    /// This runner with each call ending by `deadline` too: the calls of a
    /// step with a budget of its own (typing the restored programs) all end
    /// within it, whatever ``timeout`` says. A deadline already past leaves
    /// each call no time: it fails as timed out.
    public func bounded(by deadline: ContinuousClock.Instant) -> TmuxRunner {
        var bounded = self
        bounded.timeout = max(.zero, min(timeout, ContinuousClock.now.duration(to: deadline)))
        return bounded
    }

    /// The version of this tmux executable (`tmux -V`).
    public func version() throws(TmuxError) -> TmuxVersion {
        let run: ProgramRun
        do {
            run = try ProgramRun.run(executable.string, arguments: ["tmux", "-V"], environment: environment, timeout: timeout)
        } catch {
            throw .cannotRun(program: "\(executable.string) -V", error)
        }
        guard run.ending == .exited(0), let version = TmuxVersion(parsing: run.outputText) else {
            throw .noVersion(program: executable.string, output: run.outputText + run.errorText)
        }
        return version
    }

    /// Runs `commands` as one command sequence (one tmux client) and returns
    /// what tmux printed. Arguments are passed as they are: one ending with
    /// `;` (which tmux would take as a separator) is escaped.
    public func run(commands: [[String]]) throws(TmuxError) -> String {
        try run(Self.sequence(commands))
    }

    /// Runs `commands` as ``run(commands:)`` does and returns the bytes
    /// tmux printed, as it printed them (a path need not be UTF-8).
    public func output(commands: [[String]]) throws(TmuxError) -> [UInt8] {
        try runProgram(Self.sequence(commands)).output
    }

    /// Runs `arguments` (after `-S SOCKET`) and returns what tmux printed.
    public func run(_ arguments: [String]) throws(TmuxError) -> String {
        try runProgram(arguments).outputText
    }

    /// The arguments of one client that runs `commands` in turn.
    private static func sequence(_ commands: [[String]]) -> [String] {
        var arguments: [String] = []
        for (index, command) in commands.enumerated() {
            if index > 0 { arguments.append(";") }
            arguments += command.map { $0.hasSuffix(";") ? String($0.dropLast()) + "\\;" : $0 }
        }
        return arguments
    }

    /// Runs `tmux -u -S SOCKET arguments`. `-u` tells tmux the client reads
    /// UTF-8 whatever its locale: without it, a client started where the
    /// locale is not UTF-8 gets `_` for each character beyond ASCII.
    private func runProgram(_ arguments: [String]) throws(TmuxError) -> ProgramRun {
        // The client must not think it runs inside another tmux.
        var environment = self.environment
        environment.removeValue(forKey: "TMUX")
        let run: ProgramRun
        do {
            run = try ProgramRun.run(executable.string, arguments: ["tmux", "-u", "-S", socket.string] + arguments, environment: environment, timeout: timeout)
        } catch {
            throw .cannotRun(program: "tmux on \(socket.string)", error)
        }
        guard run.ending == .exited(0) else {
            let message = run.errorText
            // tmux tells a missing server only in words (exit status 1, as
            // for every failure): they are read here and nowhere else.
            if message.hasPrefix("no server running") || message.hasPrefix("error connecting to") {
                throw .noServer(socket: socket)
            }
            throw .commandFailed(socket: socket, command: arguments.first ?? "", message: message.isEmpty ? "\(run.ending)" : message)
        }
        return run
    }
}
