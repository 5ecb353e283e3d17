/// One finding of `restored-ctl doctor`.
///
/// JSON shape (`doctor --json`, a list): `check`, `result` (`ok`, `warning`,
/// `failed`), `detail`, `remedy` (or null).
public struct DoctorCheck: Encodable, Hashable, Sendable {
    /// How a check came out.
    public enum Result: String, Encodable, Sendable {
        /// Fine.
        case ok
        /// Works, but worth knowing.
        case warning
        /// Broken; restored will not do its job until it is fixed.
        case failed
    }

    /// What was checked.
    public var check: String
    /// How it came out.
    public var result: Result
    /// What was found.
    public var detail: String
    /// What to do, when something is wrong.
    @NullEncoded public var remedy: String?

    /// Creates a finding.
    public init(_ check: String, _ result: Result, _ detail: String, remedy: String? = nil) {
        self.check = check
        self.result = result
        self.detail = detail
        self.remedy = remedy
    }

    /// One line, with its remedy on the next: `[ok]    session bus: reachable`.
    public func text(style: TerminalStyle) -> String {
        let tag = switch result {
        case .ok: style.green("[ok]     ")
        case .warning: style.yellow("[warning]")
        case .failed: style.red("[failed] ")
        }
        var text = "\(tag) \(check): \(detail)"
        if let remedy { text += "\n          \(remedy)" }
        return text
    }
}
