import X11Client

/// Window workspaces and positions on X11, through EWMH: read at a save
/// for each instance's windows (`_NET_WM_PID`), applied at a restore to
/// the windows the relaunched instances map, as a pager would ask.
struct EWMHWindowPlacer: MovingWindowPlacer {
    let connection: X11Connection

    /// A placer for `environment`'s `DISPLAY` (and `XAUTHORITY`); nil
    /// without an X display that answers.
    init?(environment: [String: String]) {
        guard let display = X11Display(environment: environment),
              let connection = try? X11Connection(display: display, authorityFile: X11Display.authorityFile(environment: environment), timeout: .seconds(2))
        else { return nil }
        self.connection = connection
    }

    func windows() -> [PlacedWindow]? {
        guard let windows = try? connection.managedWindows() else { return nil }
        return windows.map { window in
            let placement = window.placement
            return PlacedWindow(id: UInt64(window.id), pid: window.pid, place: SavedWindow(
                desktop: placement.desktop, x: placement.x, y: placement.y, width: placement.width, height: placement.height
            ))
        }
    }

    func move(_ id: UInt64, to place: SavedWindow) -> Bool {
        guard let window = UInt32(exactly: id) else { return false }
        let placement = WindowPlacement(desktop: place.desktop, x: place.x, y: place.y, width: place.width, height: place.height)
        return (try? connection.place(window, at: placement)) != nil
    }
}
