public import RestoredArchive

/// The outcome of loading plugins: what loaded and what was refused.
public struct PluginCatalog: Sendable {
    /// The loaded plugins, in search order.
    public var plugins: [LoadedPlugin] = []
    /// The refused files, with reasons.
    public var refusals: [PluginRefusal] = []

    /// An empty catalog.
    public init() {}

    /// The plugin that restores `appID`, if any.
    public func plugin(for appID: AppID) -> LoadedPlugin? {
        plugins.first { $0.appID == appID }
    }
}
