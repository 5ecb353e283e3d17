/// What tells restored that an upgrade replaced it while it runs: its own
/// executable replaced on disk (``ExecutableReplacementWatch``), or a plugin
/// host of another restored version (`PluginHost.Configuration.onVersionMismatch`).
/// ``UpgradeService`` answers either with one restart.
final class UpgradeSignal: Sendable {
    /// What was seen.
    enum Cause: Sendable, Hashable {
        /// restored's executable was replaced.
        case executableReplaced
        /// A plugin host of another version started: what was seen, one line.
        case pluginHostMismatch(String)
    }

    /// The causes, newest kept while the service is busy with one.
    let causes: AsyncStream<Cause>
    private let continuation: AsyncStream<Cause>.Continuation

    init() {
        (causes, continuation) = AsyncStream<Cause>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Says that `cause` was seen; from any thread.
    func raise(_ cause: Cause) {
        continuation.yield(cause)
    }
}
