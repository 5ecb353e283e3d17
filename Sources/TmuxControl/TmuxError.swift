/// Why a tmux server could not be read or changed: one line, naming the server.
public struct TmuxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// Creates an error.
    public init(_ description: String) {
        self.description = description
    }
}
