public import RestoredState

/// A save request.
public struct HostSaveRequest: Sendable {
    /// Why the save runs; the plugin can ask.
    public var occasion: SaveOccasion
    /// The token of the archive restored last wrote from this helper: when
    /// the new state is the same, the helper answers `unchanged` (autosave).
    public var unlessSameAs: UInt64?
    /// The app's options, handed to the plugin's `create` when its instance
    /// is created (the first walk of a helper). Walks carry them because
    /// options belong to an app, known only once the helper loaded the plugin.
    public var options: [String: String]
    /// The time left before restored stops the helper, when the request was
    /// sent: the plugin bounds its waits by it (nil: no deadline).
    public var timeLeft: Duration?

    /// Creates a save request.
    public init(occasion: SaveOccasion = .request, unlessSameAs: UInt64? = nil, options: [String: String] = [:], timeLeft: Duration? = nil) {
        self.occasion = occasion
        self.unlessSameAs = unlessSameAs
        self.options = options
        self.timeLeft = timeLeft
    }
}
