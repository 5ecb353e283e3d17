import SavedText

/// Which names tmux itself would have written, so that a name read from an
/// archive is used in a target (`-t =NAME:`) or a socket path only when it
/// means there exactly what it meant at the save.
public enum TmuxName {
    /// Whether `name` is a session name as tmux keeps them: not empty, no
    /// `:` or `.` (tmux writes both `_`, and a target would read them as
    /// separators) and no control character (tmux writes those as octal
    /// escapes). Any other name did not come from tmux.
    public static func isSessionName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains(":") && !name.contains(".") && SavedText.isPrintable(name)
    }

    /// A name as tmux keeps it (escaped: ``TmuxLiteral``) turned back
    /// into the text that makes it: `\\` a backslash, `\t`, `\n`, `\r`,
    /// `\a`, `\b`, `\f` and `\v` their characters, `\ooo` its byte (never
    /// a NUL, which no name holds). A backslash before anything else stays
    /// as it is (tmux writes none: such a name came from elsewhere). Bytes
    /// that are not UTF-8 become U+FFFD.
    public static func unescaped(_ kept: String) -> String {
        guard kept.contains("\\") else { return kept }
        let bytes = Array(kept.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        let octal = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "7") }
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                result.append(byte)
                index += 1
                continue
            }
            let next = bytes[index + 1]
            if index + 3 < bytes.count, octal(next), octal(bytes[index + 2]), octal(bytes[index + 3]) {
                let value = Int(next - 48) * 64 + Int(bytes[index + 2] - 48) * 8 + Int(bytes[index + 3] - 48)
                if value > 0, value <= 255 {
                    result.append(UInt8(value))
                    index += 4
                    continue
                }
            }
            let character: UInt8? = switch next {
            case UInt8(ascii: "\\"): UInt8(ascii: "\\")
            case UInt8(ascii: "t"): 9
            case UInt8(ascii: "n"): 10
            case UInt8(ascii: "r"): 13
            case UInt8(ascii: "a"): 7
            case UInt8(ascii: "b"): 8
            case UInt8(ascii: "f"): 12
            case UInt8(ascii: "v"): 11
            default: nil
            }
            if let character {
                result.append(character)
                index += 2
            } else {
                result.append(byte)
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Whether `name` is a server's socket name in the user's socket
    /// directory: not empty, not `.` or `..`, no `/` and no control
    /// character.
    public static func isServerName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && SavedText.isPrintable(name)
    }
}
