/// Why the X server could not be reached or answered an error: one line.
public struct X11Error: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// An error.
    public init(_ description: String) {
        self.description = description
    }
}
