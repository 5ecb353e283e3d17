/// Why entries handed over by a plugin were refused.
public enum PluginEntriesError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bytes are not well-formed entries.
    case malformed(StateFormatError)
    /// A key uses the reserved prefix (R5).
    case reservedKey(String)
    /// An object handle the host does not know, or whose object has no
    /// path, in the value of the key named.
    case unknownObject(key: String)

    /// One line.
    public var description: String {
        switch self {
        case .malformed(let error): "malformed entries from the plugin: \(error)"
        case .reservedKey(let key): "key \"\(key)\" uses the reserved prefix \"\(StateTag.reservedKeyPrefix)\""
        case .unknownObject(let key): "the object referenced under \"\(key)\" is unknown or has no restoration identifier (R14)"
        }
    }
}
