public import RestoredArchive
public import RestoredState

/// A problem met during a walk, attributed to its app and object path.
public struct EngineIssue: Hashable, Sendable, CustomStringConvertible {
    /// The app.
    public var appID: AppID
    /// The object, or nil for the app as a whole.
    public var path: ObjectPath?
    /// The rule (R1-R16, `docs/archive.md`) that applies, like "R13", if any.
    public var rule: String?
    /// What happened.
    public var message: String

    /// Creates an issue.
    public init(appID: AppID, path: ObjectPath?, rule: String? = nil, message: String) {
        self.appID = appID
        self.path = path
        self.rule = rule
        self.message = message
    }

    /// `org.example.Notes: Main/Split: message`.
    public var description: String {
        var text = appID.rawValue
        if let path { text += ": \(path)" }
        return text + ": " + message
    }
}
