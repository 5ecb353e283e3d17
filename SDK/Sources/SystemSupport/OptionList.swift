/// A list of names given as one option value (`programs = less, man
/// +ssh`): names separated by commas and any whitespace (spaces, tabs,
/// newlines), empty names dropped. The one reading of such lists for every
/// option of restored and its plugins.
public enum OptionList {
    /// The names of `value`, in order, duplicates kept; none for nil.
    public static func names(_ value: String?) -> [String] {
        (value ?? "").split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
    }

    /// Whether a yes-or-no option is on: `true`, `yes`, `on` or `1`, in any
    /// case; anything else, or no value, is off. The one reading of such
    /// options (`pane-contents`, `keep-url-queries`).
    public static func isOn(_ value: String?) -> Bool {
        ["true", "yes", "on", "1"].contains((value ?? "").lowercased().filter { !$0.isWhitespace })
    }
}
