import SystemSupport
public import ProcessSpawning
public import SystemPackage

/// Why a tmux server could not be read or changed, with its cause: callers
/// tell the cases apart by their case, never by their text. Each says in
/// one line what happened, naming the server.
public enum TmuxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The tmux program could not be run, or did not end in its time.
    case cannotRun(program: String, ProgramRunError)
    /// `tmux -V` printed no version.
    case noVersion(program: String, output: String)
    /// No server listens on the socket: it is stale (its server gone), or
    /// no server ever ran there. tmux says so only in words, which are read
    /// in one place (``TmuxRunner/run(_:)``).
    case noServer(socket: FilePath)
    /// A tmux command failed; `message` is what tmux printed, or how it ended.
    case commandFailed(socket: FilePath, command: String, message: String)
    /// tmux printed output that cannot be read as what was asked for.
    case unreadableOutput(socket: FilePath, detail: String)
    /// The tmux server did not answer in its time after it was started:
    /// `within` is how long it was waited for, and `walkTimeEnded` whether
    /// the walk's own time ended the wait before the server's limit did.
    case serverDidNotStart(name: String, within: Duration, walkTimeEnded: Bool)
    /// Something still takes connections on the server's socket but answers
    /// no tmux command (a server that is ending, or one that hangs), so no
    /// server could be started there: `within` is how long it was waited
    /// for, and `walkTimeEnded` whether the walk's own time ended the wait.
    case socketHeld(name: String, socket: FilePath, within: Duration, walkTimeEnded: Bool)
    /// Saved or restored state the plugin cannot use, and why.
    case invalidState(String)

    /// One line: what happened.
    public var description: String {
        switch self {
        case .cannotRun(let program, let cause): "\(program): \(cause)"
        case .noVersion(let program, let output): "\(program) -V printed no version: \(output)"
        case .noServer(let socket): "tmux on \(socket): no server running"
        case .commandFailed(let socket, let command, let message): "tmux on \(socket): \(command): \(message)"
        case .unreadableOutput(let socket, let detail): "tmux on \(socket) printed \(detail)"
        case .serverDidNotStart(let name, let waited, let walkTimeEnded):
            "the tmux server \(name) did not come up within \(waited.formattedSeconds)\(Self.walkTime(walkTimeEnded))"
        case .socketHeld(let name, let socket, let waited, let walkTimeEnded):
            "the socket \(socket) of the tmux server \(name) still takes connections but answers no command after "
                + "\(waited.formattedSeconds)\(Self.walkTime(walkTimeEnded)) (a server ending, or hung): "
                + "end it (tmux -S \(socket) kill-server), then restore again"
        case .invalidState(let why): why
        }
    }

    /// What a wait's message adds when the walk's time, not the wait's own
    /// limit, ended it.
    private static func walkTime(_ ended: Bool) -> String {
        ended ? ", when the walk's time ran out" : ""
    }
}
