extension StringProtocol {
    /// The text without whitespace (`Character.isWhitespace`: spaces, tabs,
    /// line ends) at either end: what Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` gives, without
    /// linking Foundation (the daemon keeps to the standard library and
    /// FoundationEssentials, whose String has no such method).
    public func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(self[first ... last])
    }
}
