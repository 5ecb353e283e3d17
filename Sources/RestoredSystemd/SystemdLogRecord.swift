// One log message rendered for systemd: a prefixed stderr line or journal fields.

import Logging

/// One log message with its metadata merged, rendered either as a line for
/// standard error (sd-daemon(3) priority prefix) or as journal fields
/// (systemd.journal-fields(7)).
struct SystemdLogRecord {
    var level: Logger.Level
    var message: String
    var metadata: Logger.Metadata
    var file: String
    var function: String
    var line: UInt

    /// Fields this handler sets itself; metadata keys that would collide get a prefix.
    static let reservedFieldNames: Set<String> = [
        "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "LOGGER",
    ]

    /// The prefix given to metadata keys that start with a digit or collide with a reserved field.
    static let fieldNamePrefix = "X_"

    /// The longest field name journald accepts.
    static let maximumFieldNameLength = 64

    /// `<priority>message key=value ...` and a newline: one line whatever the message holds.
    ///
    /// Metadata is sorted by key. Line breaks are written as `\n` and `\r`;
    /// values that are empty or hold spaces, quotes or `=` are quoted.
    func standardErrorLine() -> String {
        var text = "<\(level.syslogPriority)>"
        text += Self.escapingLineBreaks(message)
        for key in metadata.keys.sorted() {
            text += " "
            text += Self.escapingLineBreaks(key).map { $0 == " " || $0 == "=" ? "_" : $0 }
            text += "="
            text += Self.escapingLineBreaks(Self.quotedIfNeeded(metadata[key]!.description))
        }
        text += "\n"
        return text
    }

    /// `NAME=value` strings for sd_journal_sendv(3): the message, its
    /// priority, identifier and source location, then each metadata key as a
    /// sanitised field name (``journalFieldName(forMetadataKey:)``), sorted.
    /// Values keep their line breaks: the journal stores them as they are.
    func journalFields(syslogIdentifier: String, label: String) -> [String] {
        var fields = [
            "MESSAGE=\(message)",
            "PRIORITY=\(level.syslogPriority)",
            "SYSLOG_IDENTIFIER=\(syslogIdentifier)",
            "CODE_FILE=\(file)",
            "CODE_LINE=\(line)",
            "CODE_FUNC=\(function)",
            "LOGGER=\(label)",
        ]
        for key in metadata.keys.sorted() {
            guard let name = Self.journalFieldName(forMetadataKey: key) else { continue }
            fields.append("\(name)=\(metadata[key]!.description)")
        }
        return fields
    }

    /// A journal field name for a metadata key: upper-cased, every character
    /// outside `A-Z0-9_` replaced by `_`, leading underscores (reserved for
    /// trusted fields) dropped, at most 64 characters. Keys that would start
    /// with a digit or clash with a field the handler sets get the prefix
    /// `X_`; keys with nothing left are dropped (nil).
    static func journalFieldName(forMetadataKey key: String) -> String? {
        var name = String(
            key.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "a"..."z": Character(Unicode.Scalar(scalar.value - 32)!)
                case "A"..."Z", "0"..."9", "_": Character(scalar)
                default: "_"
                }
            }
        )
        name = String(name.drop(while: { $0 == "_" }))
        guard !name.isEmpty else { return nil }
        if name.first!.isNumber || reservedFieldNames.contains(name) {
            name = fieldNamePrefix + name
        }
        return String(name.prefix(maximumFieldNameLength))
    }

    static func escapingLineBreaks(_ text: String) -> String {
        guard text.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    static func quotedIfNeeded(_ value: String) -> String {
        let needsQuotes =
            value.isEmpty
            || value.unicodeScalars.contains { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "=" }
        guard needsQuotes else { return value }
        var quoted = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        quoted += "\""
        return quoted
    }
}

extension Logger.Level {
    /// The syslog priority journald and sd-daemon(3) use for this level:
    /// trace and debug 7, info 6, notice 5, warning 4, error 3, critical 2.
    var syslogPriority: Int {
        switch self {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
