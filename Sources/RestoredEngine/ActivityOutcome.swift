/// How an app's last save or restore ended: the action and its word, as
/// restored records it and the admin API (`LastAction`, `LastOutcome`)
/// carries it to `restored-ctl`.
public enum ActivityOutcome: Hashable, Sendable {
    /// A save.
    case save(SaveOutcome)
    /// A restore.
    case restore(RestoreOutcome)

    /// Reads the admin API's two words; nil for words this build does not know.
    public init?(action: String, word: String) {
        switch action {
        case "save": guard let outcome = SaveOutcome(rawValue: word) else { return nil }; self = .save(outcome)
        case "restore": guard let outcome = RestoreOutcome(rawValue: word) else { return nil }; self = .restore(outcome)
        default: return nil
        }
    }

    /// `save` or `restore`.
    public var action: String {
        switch self {
        case .save: "save"
        case .restore: "restore"
        }
    }

    /// The outcome's word: `saved`, `no-archive` ...
    public var word: String {
        switch self {
        case .save(let outcome): outcome.rawValue
        case .restore(let outcome): outcome.rawValue
        }
    }

    /// Whether the user should look at it.
    public var isFailure: Bool {
        switch self {
        case .save(let outcome): outcome.isFailure
        case .restore(let outcome): outcome.isFailure
        }
    }
}
