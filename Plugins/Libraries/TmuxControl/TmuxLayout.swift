/// A window layout as tmux writes it (`#{window_layout}`), checked before
/// it is given back to tmux.
///
/// tmux 3.3a's server crashes on some malformed layouts (`select-layout x`
/// ends it with a segmentation fault, and every session of the user with
/// it), so a layout from an archive reaches `select-layout` only when it
/// reads as tmux writes one: four hex digits of tmux's checksum of the
/// rest, a comma, and one cell, where a cell is `WxH,X,Y` followed by
/// `,ID` (a pane) or by `{cells}` / `[cells]` (side by side, stacked),
/// cells separated by commas (as every tmux since 1.7 writes them). Sizes and offsets are bounded, and so are
/// the nesting depth and the length.
public struct TmuxLayout: Hashable, Sendable {
    /// The layout, as tmux wrote it.
    public let text: String
    /// How many panes it arranges.
    public let paneCount: Int

    /// The longest layout taken (tmux's own for a window of many panes is
    /// a few kilobytes).
    public static let maximumLength = 65_536
    /// The deepest nesting taken.
    public static let maximumDepth = 64

    /// `text` as a layout, or nil when tmux did not write it so.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count > 5, bytes.count <= Self.maximumLength, bytes[4] == UInt8(ascii: ","),
              let checksum = UInt16(String(decoding: bytes[0 ..< 4], as: UTF8.self), radix: 16),
              checksum == Self.checksum(of: bytes[5...])
        else { return nil }
        var parser = Parser(bytes: bytes, index: 5)
        guard let panes = parser.cell(depth: 0), parser.index == bytes.count else { return nil }
        self.text = text
        paneCount = panes
    }

    /// tmux's checksum of a layout's body (`layout_checksum`).
    public static func checksum(of body: some Sequence<UInt8>) -> UInt16 {
        var sum: UInt16 = 0
        for byte in body {
            sum = (sum >> 1) &+ ((sum & 1) << 15)
            sum = sum &+ UInt16(byte)
        }
        return sum
    }

    private struct Parser {
        let bytes: [UInt8]
        var index: Int

        /// One cell; the number of panes in it, or nil.
        mutating func cell(depth: Int) -> Int? {
            guard depth < TmuxLayout.maximumDepth, number() != nil, take(UInt8(ascii: "x")), number() != nil,
                  take(UInt8(ascii: ",")), number() != nil, take(UInt8(ascii: ",")), number() != nil
            else { return nil }
            if take(UInt8(ascii: "{")) { return cells(depth: depth, until: UInt8(ascii: "}")) }
            if take(UInt8(ascii: "[")) { return cells(depth: depth, until: UInt8(ascii: "]")) }
            // A pane: its id.
            return take(UInt8(ascii: ",")) && number() != nil ? 1 : nil
        }

        /// Cells separated by commas, up to `close`; their panes, or nil.
        private mutating func cells(depth: Int, until close: UInt8) -> Int? {
            var panes = 0
            repeat {
                guard let inner = cell(depth: depth + 1) else { return nil }
                panes += inner
            } while take(UInt8(ascii: ","))
            return take(close) ? panes : nil
        }

        /// A decimal number of at most six digits.
        private mutating func number() -> Int? {
            let start = index
            while index < bytes.count, index - start < 7, (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > start, index - start <= 6 else { return nil }
            return Int(String(decoding: bytes[start ..< index], as: UTF8.self))
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }
    }
}
