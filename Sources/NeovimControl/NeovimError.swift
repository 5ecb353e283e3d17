/// Why a Neovim could not be read or replayed into: one line.
public struct NeovimError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// An error.
    public init(_ description: String) {
        self.description = description
    }
}
