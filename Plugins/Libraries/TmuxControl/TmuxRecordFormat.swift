/// How the plugin asks tmux for records of fields (`list-sessions -F`,
/// `list-windows -F`, `list-panes -F`) and reads them back byte for byte,
/// whatever the release.
///
/// What each release prints of a `-F` line (read in tmux's sources,
/// `cmdq_print` and `server_client_print`, 2.9 to 3.7c):
///
/// | tmux | a command's printed line |
/// | --- | --- |
/// | up to 3.3a, 3.6 and later | its bytes as they are |
/// | 3.4, 3.5, 3.5a | through `vis(3)` with `VIS_OCTAL`, `VIS_CSTYLE` and `VIS_NOSLASH`: a control character is `\037` or `\r`, a byte that is no UTF-8 `\303`; tabs, line feeds and backslashes are left as they are |
///
/// and, in every release, a client whose locale is not UTF-8 gets `_` for
/// each character beyond ASCII, which ``TmuxRunner`` prevents with `-u`.
/// Under 3.4 and 3.5 a backslash typed by the user and one of vis's escapes
/// read alike (a title `a\037b`), so nothing can be unescaped from the text
/// alone: ``quoted`` frames each field so that it can.
public enum TmuxRecordFormat: Hashable, Sendable {
    /// tmux 2.9 and later: every text field asked with tmux's `q:` modifier,
    /// which writes a backslash before each of ``quotedByTmux`` (the
    /// backslash among them), and followed by an unescaped `|`. A backslash
    /// in what tmux prints is then either `q:`'s, before one of those
    /// characters, or vis's, before three octal digits or a letter of its C
    /// escapes: never the user's. A field may hold line feeds; a record is
    /// its kind, its fields each ended by `|`, then a line feed.
    case quoted
    /// Before 2.9 (no `q:`; nothing escaped either): one line per record,
    /// fields separated by U+001F, which tmux passes through.
    case plain

    /// The format for the tmux of `version` (nil: unknown, taken as a
    /// current tmux).
    public init(for version: TmuxVersion?) {
        if let version, version < Self.quotingSince { self = .plain } else { self = .quoted }
    }

    /// The first tmux with the `q:` modifier.
    public static let quotingSince = TmuxVersion(major: 2, minor: 9)

    /// What `q:` puts a backslash before, the same from 2.9 to 3.7c
    /// (`format_quote_shell`).
    static let quotedByTmux: Set<UInt8> = Set("|&;<>()$`\\\"'*?[# =%".utf8)

    /// vis's C escapes (`VIS_CSTYLE`) and the bytes they stand for.
    static let visEscapes: [UInt8: UInt8] = [
        UInt8(ascii: "n"): 0x0A, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "b"): 0x08, UInt8(ascii: "a"): 0x07,
        UInt8(ascii: "v"): 0x0B, UInt8(ascii: "t"): 0x09, UInt8(ascii: "f"): 0x0C, UInt8(ascii: "s"): 0x20,
    ]

    static let plainSeparator: UInt8 = 0x1F
    static let quotedSeparator = UInt8(ascii: "|")

    /// One field of a record.
    public enum Field: Hashable, Sendable {
        /// Text that can hold anything (a name, a path, a title).
        case text(String)
        /// A number or a flag, which tmux writes in digits.
        case number(String)
    }

    /// The `-F` format of a record of `kind` (one ASCII letter) with `fields`.
    public func template(kind: Character, fields: [Field]) -> String {
        switch self {
        case .quoted:
            let parts = fields.map { field in
                switch field {
                case .text(let name): "#{q:\(name)}|"
                case .number(let name): "#{\(name)}|"
                }
            }
            return "\(kind)|" + parts.joined()
        case .plain:
            let parts = fields.map { field in
                switch field {
                case .text(let name), .number(let name): "#{\(name)}"
                }
            }
            return ([String(kind)] + parts).joined(separator: "\u{1F}")
        }
    }

    /// Why tmux's output cannot be read as records.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// The record (from 1) where reading stopped.
        public var record: Int
        /// What was found there.
        public var detail: String

        /// One line.
        public var description: String { "record \(record) cannot be read (\(detail))" }
    }

    /// The records of `output`, each its kind then its fields, where
    /// `fieldCounts` says how many fields a record of each kind has.
    public func records(of output: [UInt8], fieldCounts: [Character: Int]) throws(Failure) -> [[String]] {
        switch self {
        case .quoted: return try Self.quotedRecords(output, fieldCounts: fieldCounts)
        case .plain: return try Self.plainRecords(output, fieldCounts: fieldCounts)
        }
    }

    private static func plainRecords(_ output: [UInt8], fieldCounts: [Character: Int]) throws(Failure) -> [[String]] {
        var records: [[String]] = []
        for line in output.split(separator: 0x0A, omittingEmptySubsequences: true) {
            let fields = line.split(separator: plainSeparator, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard let kind = fields.first.flatMap({ $0.count == 1 ? $0.first : nil }), fieldCounts[kind] == fields.count - 1 else {
                throw Failure(record: records.count + 1, detail: "expected a session, window or pane line: \(excerpt(line))")
            }
            records.append(fields)
        }
        return records
    }

    private static func quotedRecords(_ output: [UInt8], fieldCounts: [Character: Int]) throws(Failure) -> [[String]] {
        var records: [[String]] = []
        var index = output.startIndex
        while index < output.endIndex {
            let start = index
            func failure(_ why: String) -> Failure {
                Failure(record: records.count + 1, detail: "\(why): \(excerpt(output[start...]))")
            }
            // The kind: one letter, then the separator.
            guard output.endIndex - index >= 2, output[index + 1] == quotedSeparator,
                  let count = fieldCounts[Character(Unicode.Scalar(output[index]))]
            else { throw failure("expected a session, window or pane record") }
            var record = [String(Character(Unicode.Scalar(output[index])))]
            index += 2
            while record.count <= count {
                var field: [UInt8] = []
                while true {
                    guard index < output.endIndex else { throw failure("it ends inside field \(record.count)") }
                    let byte = output[index]
                    if byte == quotedSeparator { index += 1; break }
                    guard byte == UInt8(ascii: "\\") else { field.append(byte); index += 1; continue }
                    guard index + 1 < output.endIndex else { throw failure("it ends inside an escape") }
                    let next = output[index + 1]
                    if let value = octal(output, at: index + 1) {
                        field.append(value)
                        index += 4
                    } else if let value = visEscapes[next] {
                        field.append(value)
                        index += 2
                    } else if quotedByTmux.contains(next) {
                        field.append(next)
                        index += 2
                    } else {
                        // Neither q:'s nor vis's: a tmux that writes its
                        // output in a way this plugin was not built for.
                        throw failure("an escape no tmux release writes, \\\(String(decoding: [next], as: UTF8.self)), in field \(record.count)")
                    }
                }
                record.append(String(decoding: field, as: UTF8.self))
            }
            guard index < output.endIndex, output[index] == 0x0A else {
                throw failure("more fields than the \(count) asked for")
            }
            index += 1
            records.append(record)
        }
        return records
    }

    /// The byte of vis's octal escape whose three digits start at `index`.
    private static func octal(_ bytes: [UInt8], at index: Int) -> UInt8? {
        guard index + 2 < bytes.endIndex else { return nil }
        var value = 0
        for digit in bytes[index...(index + 2)] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(digit) else { return nil }
            value = value * 8 + Int(digit - UInt8(ascii: "0"))
        }
        return value <= 0xFF ? UInt8(value) : nil
    }

    /// The start of `bytes`, readable in one line.
    private static func excerpt(_ bytes: ArraySlice<UInt8>) -> String {
        let line = bytes.prefix(200).prefix { $0 != 0x0A }
        return String(decoding: line, as: UTF8.self).unicodeScalars.map { $0.value < 0x20 ? "\\x\(String($0.value, radix: 16))" : String($0) }.joined()
    }
}
