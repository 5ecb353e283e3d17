import Glibc
import SystemPackage
import WindowManagerIPC
import X11Client

/// Window places on sway and i3, through their IPC socket: at a save, each
/// window's workspace, output, tiled or floating, frame and fullscreen
/// (`GET_TREE`); at a restore, IPC commands aimed at the new window's
/// container (`[con_id=N]`), as a user's binding would send them.
///
/// A window's process is in sway's tree; i3's names the X window, whose
/// `_NET_WM_PID` says it. Saved names reach a command only inside double
/// quotes and only when they hold no quote, backslash or control
/// character: a name that does not is not used, and the window stays
/// where the window manager put it.
struct TilingWindowPlacer: WindowPlacer {
    let connection: WindowManagerConnection
    /// The X server i3 manages, for the processes of its windows.
    let display: X11Connection?

    /// A placer for the sway or i3 of `environment`; nil when none answers.
    init?(environment: [String: String]) {
        guard let socket = WindowManagerConnection.socket(environment: environment),
              let connection = try? WindowManagerConnection(socket: socket, timeout: .seconds(2)),
              (try? connection.tree()) != nil
        else { return nil }
        self.connection = connection
        display = X11Display(environment: environment).flatMap {
            try? X11Connection(display: $0, authorityFile: X11Display.authorityFile(environment: environment), timeout: .seconds(2))
        }
    }

    func windows() -> [PlacedWindow]? {
        guard let tree = try? connection.tree() else { return nil }
        return tree.windows.map { window in
            let pid = window.pid ?? window.xWindow.flatMap { xWindow in
                (try? display?.property32("_NET_WM_PID", of: xWindow))?.first.flatMap { Int32(exactly: $0) }
            }
            let frame = window.frame
            return PlacedWindow(id: UInt64(window.id), pid: pid, place: SavedWindow(
                workspace: window.workspace, output: window.output, floating: window.floating, fullscreen: window.fullscreen,
                x: frame[0], y: frame[1], width: frame[2], height: frame[3]
            ))
        }
    }

    func move(_ id: UInt64, to place: SavedWindow) -> Bool {
        let target = "[con_id=\(id)]"
        var commands: [String] = []
        if let workspace = place.workspace.flatMap(WindowManagerCommand.quoted) {
            // A workspace that does not exist yet opens on the output it was on.
            if let output = place.output.flatMap(WindowManagerCommand.quoted) { _ = try? connection.run("workspace \(workspace) output \(output)") }
            commands.append("\(target) move container to workspace \(workspace)")
        }
        if place.floating == true {
            // Its size first: resizing a floating window moves it.
            commands.append("\(target) floating enable")
            commands.append("\(target) resize set \(max(place.width, 1)) px \(max(place.height, 1)) px")
            commands.append("\(target) move absolute position \(place.x) px \(place.y) px")
        }
        if place.fullscreen { commands.append("\(target) fullscreen enable") }
        var moved = !commands.isEmpty
        for command in commands where (try? connection.run(command)) == nil { moved = false }
        if moved, place.floating == true { settleFloatingFrame(of: id, at: place) }
        return moved
    }

    /// The frame a window manager reports and the one its commands take
    /// may differ by its decorations (i3 and sway count the title bar
    /// differently), and a window that has just mapped may still commit the
    /// size it was first given: the frame is looked at again for a second,
    /// and the commands sent again, corrected by what they missed, while it
    /// differs.
    private func settleFloatingFrame(of id: UInt64, at place: SavedWindow) {
        let target = "[con_id=\(id)]"
        let wanted = [place.x, place.y, max(place.width, 1), max(place.height, 1)]
        var commanded = wanted
        for _ in 0 ..< 5 {
            usleep(200_000)
            guard let window = (try? connection.tree())?.windows.first(where: { UInt64($0.id) == id }), window.frame != wanted else { return }
            commanded = zip(commanded, zip(wanted, window.frame)).map { $0 + $1.0 - $1.1 }
            _ = try? connection.run("\(target) resize set \(max(commanded[2], 1)) px \(max(commanded[3], 1)) px")
            _ = try? connection.run("\(target) move absolute position \(commanded[0]) px \(commanded[1]) px")
        }
    }
}
