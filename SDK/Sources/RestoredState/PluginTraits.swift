/// What a plugin declares of itself (`restored_plugin_descriptor.traits`;
/// the bits are `restored_plugin_trait`'s).
public struct PluginTraits: OptionSet, Hashable, Sendable {
    /// The bits, as `restored_plugin_trait` has them.
    public let rawValue: UInt32

    /// Traits from their bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Its restoration works on a live app, so a ``RestoreReason/recovery``
    /// walk runs for it (`RESTORED_PLUGIN_RESTORES_INTO_RUNNING_APP`).
    public static let restoresIntoRunningApp = PluginTraits(rawValue: 1 << 0)
    /// What it restores needs the graphical session: its login restore waits
    /// for the desktop (`RESTORED_PLUGIN_NEEDS_GRAPHICAL_SESSION`).
    public static let needsGraphicalSession = PluginTraits(rawValue: 1 << 1)

    /// Every trait this host knows; other bits are kept and ignored.
    public static let known: PluginTraits = [.restoresIntoRunningApp, .needsGraphicalSession]
}
