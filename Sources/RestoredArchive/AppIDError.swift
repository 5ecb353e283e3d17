/// A string that is not a valid ``AppID``, and the rule it breaks.
public struct AppIDError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The rule an app id breaks.
    public enum Reason: Hashable, Sendable {
        /// The string is empty.
        case empty
        /// The string has more than 255 bytes (the count is given).
        case tooLong(Int)
        /// The string has a byte outside ASCII.
        case notASCII
        /// The string has a character other than `A-Z a-z 0-9 _ - .`.
        case invalidCharacter(Character)
        /// The string starts or ends with a dot or has two dots in a row.
        case emptyElement
        /// The string has a single element (no dot).
        case tooFewElements
        /// An element (given) starts with a digit.
        case elementStartsWithDigit(String)
    }

    /// The string that was refused.
    public var string: String
    /// The rule it breaks.
    public var reason: Reason

    /// Creates an error for `string` breaking the rule `reason`.
    public init(string: String, reason: Reason) {
        self.string = string
        self.reason = reason
    }

    /// One line: the refused id and the rule, with an example of a valid id.
    public var description: String {
        let rule: String =
            switch reason {
            case .empty:
                "an app id cannot be empty; use a reverse-DNS name like org.example.Notes"
            case .tooLong(let count):
                "an app id has at most \(AppID.maximumLength) bytes, this one has \(count)"
            case .notASCII:
                "an app id uses only ASCII letters, digits, '_', '-' and '.', like org.example.Notes"
            case .invalidCharacter(let character):
                "\(String(reflecting: character)) is not allowed: an app id uses only letters, digits, '_', '-' and '.', like org.example.Notes"
            case .emptyElement:
                "an app id cannot start or end with a dot or have two dots in a row, like org.example.Notes"
            case .tooFewElements:
                "an app id has at least two elements separated by dots, like org.example.Notes"
            case .elementStartsWithDigit(let element):
                "the element \"\(element)\" starts with a digit, which no element of an app id may do, like org.example.Notes"
            }
        return "invalid app id \(Self.quoted(string)): \(rule)"
    }

    /// `string` quoted and escaped, cut to 80 characters, for messages.
    private static func quoted(_ string: String) -> String {
        let limit = 80
        if string.count <= limit {
            return String(reflecting: string)
        }
        return String(reflecting: String(string.prefix(limit))) + "..."
    }
}
