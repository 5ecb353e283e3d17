/// A plugin callback that failed, with the message the plugin gave.
public struct PluginCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The callback's name in `restored/plugin.h`.
    public var callback: String
    /// The status it returned.
    public var status: Int32
    /// The plugin's message, if it set one.
    public var message: String?

    /// Creates an error.
    public init(callback: String, status: Int32, message: String?) {
        self.callback = callback
        self.status = status
        self.message = message
    }

    /// One line: which callback failed and why.
    public var description: String {
        if let message, !message.isEmpty {
            return "\(callback) failed: \(message)"
        }
        return "\(callback) failed with status \(status)"
    }
}
