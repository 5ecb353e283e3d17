/// Where a top-level window is, as a window manager shows it: its
/// workspace and its frame's position, with the size of its contents.
public struct WindowPlacement: Hashable, Sendable, Codable {
    /// Its workspace (`_NET_WM_DESKTOP`); nil when the window manager says none.
    public var desktop: Int?
    /// The frame's left edge on the screen.
    public var x: Int
    /// The frame's top edge on the screen.
    public var y: Int
    /// The width of the window's contents.
    public var width: Int
    /// The height of the window's contents.
    public var height: Int

    /// A placement.
    public init(desktop: Int?, x: Int, y: Int, width: Int, height: Int) {
        self.desktop = desktop
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// A top-level window an EWMH window manager manages.
public struct ManagedWindow: Hashable, Sendable {
    /// Its X id.
    public var id: UInt32
    /// The process that made it (`_NET_WM_PID`), when it says.
    public var pid: Int32?
    /// Where it is.
    public var placement: WindowPlacement
}
