public import SystemPackage

/// What a child gets besides its program, arguments and environment. Every
/// descriptor of the caller not named here stays out of the child.
public struct SpawnOptions: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// The caller's own stream.
        case inherit
        /// `/dev/null`.
        case null
        /// This descriptor of the caller.
        case descriptor(FileDescriptor)
    }

    /// Standard input.
    public var input: Stream
    /// Standard output.
    public var output: Stream
    /// Standard error.
    public var errors: Stream
    /// A descriptor of the caller that the child gets as descriptor 3.
    public var channel: FileDescriptor?
    /// Whether the child leads a process group of its own (a Ctrl-C meant
    /// for the caller does not reach it).
    public var ownProcessGroup: Bool

    /// Options with every stream inherited, no channel, the caller's process group.
    public init(
        input: Stream = .inherit, output: Stream = .inherit, errors: Stream = .inherit,
        channel: FileDescriptor? = nil, ownProcessGroup: Bool = false
    ) {
        self.input = input
        self.output = output
        self.errors = errors
        self.channel = channel
        self.ownProcessGroup = ownProcessGroup
    }
}
