import FoundationEssentials

/// One output (monitor) of sway or i3, as `GET_OUTPUTS` reports it.
public struct WindowManagerOutput: Hashable, Sendable, Decodable {
    /// Its connector's name (`eDP-1`, `HDMI-A-1`, `HEADLESS-1`).
    public var name: String
    /// Whether it shows anything (a disabled or unplugged one does not).
    public var active: Bool
    /// i3's primary output; sway has none.
    public var primary: Bool
    /// sway's focused output; i3 says none.
    public var focused: Bool
    /// Its place in the layout: x, y, width, height.
    public var rect: [Int]

    private enum CodingKeys: String, CodingKey { case name, active, primary, focused, rect }
    private struct Rect: Decodable { var x, y, width, height: Int }

    /// An output as its JSON says it (missing flags are false).
    public init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        name = try fields.decode(String.self, forKey: .name)
        active = try fields.decodeIfPresent(Bool.self, forKey: .active) ?? false
        primary = try fields.decodeIfPresent(Bool.self, forKey: .primary) ?? false
        focused = try fields.decodeIfPresent(Bool.self, forKey: .focused) ?? false
        let rect = try fields.decode(Rect.self, forKey: .rect)
        self.rect = [rect.x, rect.y, rect.width, rect.height]
    }

    /// An output.
    public init(name: String, active: Bool, primary: Bool = false, focused: Bool = false, rect: [Int]) {
        self.name = name
        self.active = active
        self.primary = primary
        self.focused = focused
        self.rect = rect
    }

    /// Where a window saved on `saved` goes among `outputs`: that output
    /// while it is active, else the primary one (i3), the focused one
    /// (sway), or the first active one; nil when none is active.
    public static func destination(for saved: String?, among outputs: [WindowManagerOutput]) -> WindowManagerOutput? {
        let active = outputs.filter(\.active)
        if let saved, let same = active.first(where: { $0.name == saved }) { return same }
        return active.first(where: \.primary) ?? active.first(where: \.focused) ?? active.first
    }

    /// `frame` (x, y, width, height) moved and, if need be, shrunk to lie
    /// inside this output.
    public func fitting(_ frame: [Int]) -> [Int] {
        let width = min(max(frame[2], 1), rect[2]), height = min(max(frame[3], 1), rect[3])
        let x = min(max(frame[0], rect[0]), rect[0] + rect[2] - width)
        let y = min(max(frame[1], rect[1]), rect[1] + rect[3] - height)
        return [x, y, width, height]
    }
}
