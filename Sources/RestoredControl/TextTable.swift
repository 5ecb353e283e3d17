/// Columns aligned with two spaces between them, the last one unpadded.
public struct TextTable: Sendable {
    /// The header cells.
    public var header: [String]
    /// The rows.
    public var rows: [[String]] = []

    /// Creates a table with `header`.
    public init(header: [String]) {
        self.header = header
    }

    /// The table as lines, with a final newline.
    public func text(style: TerminalStyle = .plain) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? Self.visibleWidth($0[column]) : 0 }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (column, cell) in cells.enumerated() {
                let last = column == cells.count - 1
                text += last ? cell : cell + String(repeating: " ", count: widths[column] - Self.visibleWidth(cell) + 2)
            }
            return text
        }
        var lines = [style.bold(line(header))]
        lines += rows.map(line)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The characters a terminal shows: escape sequences (`ESC [ … m`) take no room.
    static func visibleWidth(_ text: String) -> Int {
        var width = 0
        var inEscape = false
        for character in text {
            if inEscape {
                if character == "m" { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                width += 1
            }
        }
        return width
    }
}
