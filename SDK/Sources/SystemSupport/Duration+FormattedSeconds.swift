extension Duration {
    /// The duration in seconds to the nearest tenth, for messages: `4.5 s`,
    /// `10.0 s`. A duration that is not positive reads as `0.0 s`; one too
    /// long for milliseconds to count, as its whole seconds.
    public var formattedSeconds: String {
        guard self > .zero else { return "0.0 s" }
        let (seconds, attoseconds) = components
        guard seconds < Int64.max / 1000 - 1 else { return "\(seconds) s" }
        let tenths = (seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 50) / 100
        return "\(tenths / 10).\(tenths % 10) s"
    }
}
