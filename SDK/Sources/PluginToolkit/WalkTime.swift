public import RestorationKit

/// The deadline of a wait inside a walk: restored stops a plugin's host at
/// the walk's deadline (logind's delay before suspend, a few seconds at a
/// logout), so every wait for the app ends by it.
public enum WalkTime {
    /// The sooner of the walk's deadline and `limit` from now (the wait's
    /// own bound, for a plugin called outside a walk or by a restored that
    /// gives none).
    public static func deadline(in context: PluginContext, atMost limit: Duration) -> ContinuousClock.Instant {
        let own = ContinuousClock.now + limit
        guard let walk = context.walkDeadline else { return own }
        return min(walk, own)
    }
}
