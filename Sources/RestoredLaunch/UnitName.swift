/// Unit names for launched apps, as systemd's `DESKTOP_ENVIRONMENTS.md` asks:
/// `app-<launcher>-<ApplicationID>@<RANDOM>.service`, so that whoever looks
/// at a process's cgroup (the next save among them) finds the app again.
public enum UnitName {
    /// The service unit of one launch of `applicationID` by `launcher`, with
    /// a random instance; both are escaped as `systemd-escape` does (a `-`
    /// becomes `\x2d`).
    public static func service(launcher: String, applicationID: String, random: UInt64 = .random(in: 1...UInt64.max)) -> String {
        "app-\(escape(launcher))-\(escape(applicationID))@\(String(random, radix: 16)).service"
    }

    /// `text` with every byte that is not an ASCII letter, digit, `:`, `_`
    /// or `.` (and a leading `.`) written as `\xNN`.
    public static func escape(_ text: String) -> String {
        var escaped = ""
        for (index, byte) in text.utf8.enumerated() {
            let character = Character(Unicode.Scalar(byte))
            let plain = byte < 0x80 && (character.isLetter || character.isNumber || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "_")
                || (byte == UInt8(ascii: ".") && index > 0))
            if plain {
                escaped.append(character)
            } else {
                escaped += "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return escaped
    }
}
