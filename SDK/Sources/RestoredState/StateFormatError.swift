/// Malformed container bytes (R16: hostile bytes give this error, never a crash).
public struct StateFormatError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, for people.
    public var reason: String
    /// The byte offset in the container where it was found.
    public var offset: Int

    /// Creates an error.
    public init(_ reason: String, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// One line: what is wrong and where.
    public var description: String {
        "malformed object state at byte \(offset): \(reason)"
    }
}
