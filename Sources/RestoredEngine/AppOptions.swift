public import RestoredArchive

/// Options for apps' plugins, given as `APP-ID:KEY=VALUE` (the plugins'
/// `create` receives their app's pairs).
public enum AppOptions {
    /// Why an option could not be read.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The option as given.
        public var option: String
        /// One line: what is wrong and the form expected.
        public var description: String { "option \"\(option)\" is not APP-ID:KEY=VALUE (like org.example.Notes:live-dir=/path)" }
    }

    /// The options grouped by app.
    public static func parse(_ options: [String]) throws -> [AppID: [String: String]] {
        var result: [AppID: [String: String]] = [:]
        for option in options {
            guard let colon = option.firstIndex(of: ":"), let equals = option[colon...].firstIndex(of: "="),
                  option.index(after: colon) < equals
            else { throw ParseError(option: option) }
            let appID = try AppID(String(option[..<colon]))
            result[appID, default: [:]][String(option[option.index(after: colon)..<equals])] = String(option[option.index(after: equals)...])
        }
        return result
    }
}
