import FoundationEssentials

/// A display name (`$DISPLAY`): `:N`, `:N.S` or `unix:N` on this machine.
/// Displays on other hosts (over TCP) are not reached.
public struct X11Display: Hashable, Sendable {
    /// The display number.
    public var number: Int

    /// The display `name` names; nil for one on another host or no display.
    public init?(_ name: String) {
        var text = Substring(name)
        if text.hasPrefix("unix:") { text = text.dropFirst(4) }
        guard text.hasPrefix(":") else { return nil }
        text = text.dropFirst()
        if let dot = text.firstIndex(of: ".") { text = text[..<dot] }
        guard let number = Int(text), number >= 0 else { return nil }
        self.number = number
    }

    /// The display of `environment` (`DISPLAY`), or nil.
    public init?(environment: [String: String]) {
        guard let name = environment["DISPLAY"] else { return nil }
        self.init(name)
    }

    /// The authority file of `environment`: `XAUTHORITY`, else `~/.Xauthority`.
    public static func authorityFile(environment: [String: String]) -> String? {
        environment["XAUTHORITY"] ?? environment["HOME"].map { $0 + "/.Xauthority" }
    }

    /// Its socket, `/tmp/.X11-unix/X<number>`.
    public var socketPath: String { "/tmp/.X11-unix/X\(number)" }

    /// The `MIT-MAGIC-COOKIE-1` of this display in the authority file
    /// `path` (`$XAUTHORITY`, else `~/.Xauthority`): a local or wildcard
    /// entry for its number; nil when there is none (a server without
    /// access control, like a bare Xvfb, needs none).
    public func cookie(authorityFile path: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let bytes = [UInt8](data)
        var offset = 0
        func field() -> [UInt8]? {
            guard offset + 2 <= bytes.count else { return nil }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            guard offset + length <= bytes.count else { return nil }
            defer { offset += length }
            return Array(bytes[offset ..< offset + length])
        }
        let host = ProcessInfo.processInfo.hostName
        while offset + 2 <= bytes.count {
            let family = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            offset += 2
            guard let address = field(), let display = field(), let name = field(), let value = field() else { return nil }
            // FamilyLocal (256) for this host, or FamilyWild (65535).
            let local = family == 65535 || (family == 256 && String(decoding: address, as: UTF8.self) == host)
            if local, String(decoding: display, as: UTF8.self) == String(number), String(decoding: name, as: UTF8.self) == "MIT-MAGIC-COOKIE-1" {
                return value
            }
        }
        return nil
    }
}
