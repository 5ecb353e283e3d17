import Glibc

/// Colour and weight for a terminal: on only when standard output is a
/// terminal and `NO_COLOR` is not set to a value (https://no-color.org).
public struct TerminalStyle: Sendable {
    /// Whether escape sequences are written.
    public var isEnabled: Bool

    /// A style that writes escapes or not.
    public init(isEnabled: Bool) {
        self.isEnabled = isEnabled
    }

    /// No escapes.
    public static let plain = TerminalStyle(isEnabled: false)

    /// The style for this process's standard output and environment
    /// (`NO_COLOR` counts when it is set and not empty, as no-color.org says).
    public static func forStandardOutput(environment: [String: String]) -> TerminalStyle {
        TerminalStyle(isEnabled: isatty(STDOUT_FILENO) == 1 && (environment["NO_COLOR"] ?? "").isEmpty)
    }

    /// Bold.
    public func bold(_ text: String) -> String { wrap(text, "1") }
    /// Red, for what is wrong.
    public func red(_ text: String) -> String { wrap(text, "31") }
    /// Green, for what is fine.
    public func green(_ text: String) -> String { wrap(text, "32") }
    /// Yellow, for what deserves a look.
    public func yellow(_ text: String) -> String { wrap(text, "33") }

    private func wrap(_ text: String, _ code: String) -> String {
        isEnabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
