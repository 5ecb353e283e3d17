/// Why bytes are no MessagePack value.
public struct MessagePackError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, and where.
    public var description: String

    /// An error.
    public init(_ description: String) {
        self.description = description
    }
}
