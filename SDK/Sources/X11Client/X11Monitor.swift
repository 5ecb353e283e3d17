/// A monitor as RandR 1.5 gives it (`RRGetMonitors`): its name (for a
/// monitor of one output, the output's, such as `eDP-1` or `HDMI-A-1`),
/// whether it is the primary one, and its rectangle on the root window.
public struct X11Monitor: Hashable, Sendable {
    /// Its name.
    public var name: String
    /// Whether it is the primary monitor.
    public var primary: Bool
    /// Its left edge.
    public var x: Int
    /// Its top edge.
    public var y: Int
    /// Its width.
    public var width: Int
    /// Its height.
    public var height: Int

    /// A monitor.
    public init(name: String, primary: Bool, x: Int, y: Int, width: Int, height: Int) {
        self.name = name
        self.primary = primary
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Whether the point (`x`, `y`) lies on it.
    public func contains(x: Int, y: Int) -> Bool {
        x >= self.x && x < self.x + width && y >= self.y && y < self.y + height
    }
}
