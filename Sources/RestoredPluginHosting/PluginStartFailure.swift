public import RestoredEngine

/// Why a plugin host did not start.
public enum PluginStartFailure: Error, Hashable, Sendable {
    /// The plugin was refused by the helper.
    case refused(PluginRefusal.Reason)
    /// The helper failed.
    case fault(PluginHostFault)
}
