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

    /// The launcher and application id a unit name of the scheme carries
    /// (`app-gnome-org.gnome.Terminal-4242.scope`,
    /// `app-org.kde.konsole@3f2a.service`), unescaped; nil for any other
    /// unit. The launcher is optional: the first `-` that is not escaped
    /// ends it.
    public static func application(ofUnit unit: String) -> (launcher: String?, applicationID: String)? {
        guard unit.hasPrefix("app-") else { return nil }
        var body: Substring
        if unit.hasSuffix(".service") {
            body = unit.dropFirst(4).dropLast(8)
            if let at = body.firstIndex(of: "@") { body = body[..<at] }
        } else if unit.hasSuffix(".scope") {
            body = unit.dropFirst(4).dropLast(6)
            guard let dash = body.lastIndex(of: "-") else { return nil }
            body = body[..<dash]
        } else {
            return nil
        }
        var launcher: String?
        if let dash = body.firstIndex(of: "-") {
            launcher = unescape(body[..<dash])
            body = body[body.index(after: dash)...]
        }
        guard let id = unescape(body), !id.isEmpty else { return nil }
        return (launcher, id)
    }

    /// `text` with each `\xNN` written back as its byte; nil when that is no UTF-8.
    public static func unescape(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "\\"), utf8.distance(from: index, to: utf8.endIndex) >= 4,
               utf8[utf8.index(after: index)] == UInt8(ascii: "x"),
               let value = UInt8(String(decoding: utf8[utf8.index(index, offsetBy: 2) ..< utf8.index(index, offsetBy: 4)], as: UTF8.self), radix: 16) {
                bytes.append(value)
                index = utf8.index(index, offsetBy: 4)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
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
