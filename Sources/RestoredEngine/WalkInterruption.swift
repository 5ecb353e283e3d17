/// A restoration walk that did not run to its end: the process it ran in
/// crashed, exited or was killed. R15 counts it like a crash of the plugin.
public struct WalkInterruption: Error, Hashable, Sendable, CustomStringConvertible {
    /// What happened, in one line.
    public var reason: String

    /// Creates an interruption.
    public init(reason: String) {
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }
}
