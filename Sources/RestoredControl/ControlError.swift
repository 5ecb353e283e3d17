/// A failure `restored-ctl` reports as one line, with its exit status.
public struct ControlError: Error, Sendable, CustomStringConvertible {
    /// The process's exit status.
    public var status: ExitStatus
    /// What is wrong and what to do, without the program name.
    public var message: String

    /// Creates an error.
    public init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The line printed: `restored-ctl: <message>`.
    public var description: String { "restored-ctl: \(message)" }

    /// restored is not on the session bus.
    public static let notRunning = ControlError(
        .daemonUnreachable, "restored is not running (start it: systemctl --user start restored)"
    )
}
