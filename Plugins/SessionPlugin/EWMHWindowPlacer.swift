import WindowManagerIPC
import X11Client

/// Window workspaces and positions on X11, through EWMH: read at a save
/// for each instance's windows (`_NET_WM_PID`), applied at a restore to
/// the windows the relaunched instances map, as a pager would ask.
///
/// Each window's monitor is the RandR 1.5 monitor its frame's center lies
/// on (`RRGetMonitors`, by name). At a restore, a window whose monitor is
/// gone (an undocked laptop) goes to the primary monitor, or the first,
/// its frame moved and shrunk inside it: the rule of every placer
/// (``WindowManagerOutput/destination(for:among:)``).
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
        let monitors = (try? connection.monitors()) ?? []
        return windows.map { window in
            let placement = window.placement
            let monitor = monitors.first { $0.contains(x: placement.x + placement.width / 2, y: placement.y + placement.height / 2) }
            return PlacedWindow(id: UInt64(window.id), pid: window.pid, place: SavedWindow(
                desktop: placement.desktop, output: monitor?.name, x: placement.x, y: placement.y, width: placement.width, height: placement.height
            ))
        }
    }

    func move(_ id: UInt64, to saved: SavedWindow) -> Bool {
        guard let window = UInt32(exactly: id) else { return false }
        var frame = [saved.x, saved.y, saved.width, saved.height]
        if saved.output != nil, let monitors = try? connection.monitors(), !monitors.isEmpty {
            let outputs = monitors.map { WindowManagerOutput(name: $0.name, active: true, primary: $0.primary, rect: [$0.x, $0.y, $0.width, $0.height]) }
            if let destination = WindowManagerOutput.destination(for: saved.output, among: outputs), destination.name != saved.output {
                frame = destination.fitting(frame)
            }
        }
        let placement = WindowPlacement(desktop: saved.desktop, x: frame[0], y: frame[1], width: frame[2], height: frame[3])
        return (try? connection.place(window, at: placement)) != nil
    }
}
