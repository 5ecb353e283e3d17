/// Why a test could not set up what it needs (a program missing, a mock
/// that did not start, a lock not taken): one line saying what, and what
/// to install where that helps.
public struct TestSetupError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}
