/// A restoration walk that did not run to its end: the process it ran in
/// crashed, exited or was killed. R15 counts it like a crash of the plugin.
public struct WalkInterruption: Error, Hashable, Sendable, CustomStringConvertible {
    /// What happened, in one line.
    public var reason: String
    /// Whether the walk began: false when no plugin code ran for it (its
    /// host could not be started, or is quarantined), so R15 does not count
    /// it as an attempt.
    public var started: Bool

    /// Creates an interruption.
    public init(reason: String, started: Bool = true) {
        self.reason = reason
        self.started = started
    }

    /// The reason.
    public var description: String { reason }
}
