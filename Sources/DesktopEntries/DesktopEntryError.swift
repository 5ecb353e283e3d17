/// Why a desktop entry cannot be used: one line, naming the file.
public struct DesktopEntryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var description: String

    /// An error.
    public init(_ description: String) {
        self.description = description
    }
}
