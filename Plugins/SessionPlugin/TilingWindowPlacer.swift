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
/// `_NET_WM_PID` says it. A window whose output is gone (an undocked
/// laptop) goes to the primary output (i3), the focused one (sway), or the
/// first active one, its floating frame moved and shrunk inside it. A
/// floating frame is given relative to its output (`move position`): an
/// absolute one would take the window to the workspace shown there, away
/// from its own when that one is not shown. Saved names reach a command only inside double
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

    func move(_ id: UInt64, to saved: SavedWindow) -> Bool {
        let target = "[con_id=\(id)]"
        var place = saved
        // The saved output, or the one that takes its windows while it is
        // gone; a floating frame is given relative to it (an absolute
        // position would move the window to the workspace shown there).
        var origin = (x: 0, y: 0)
        if let outputs = try? connection.outputs(), let output = WindowManagerOutput.destination(for: saved.output, among: outputs) {
            if output.name != saved.output {
                place.output = output.name
                if saved.floating == true {
                    let frame = output.fitting([saved.x, saved.y, saved.width, saved.height])
                    (place.x, place.y, place.width, place.height) = (frame[0], frame[1], frame[2], frame[3])
                }
            }
            origin = (output.rect[0], output.rect[1])
        }
        // Whether each step the window needed went through. sway moves a
        // floating window it positions to the workspace shown on its
        // output, so there its frame comes first, then its own workspace (a
        // floating window keeps its place moving to another workspace of
        // its output); i3 keeps a window's workspace, and takes a frame
        // best once the window is on it.
        var steps: [Bool] = []
        let frameFirst = (try? connection.isSway()) ?? false
        let toWorkspace = { () -> Bool in
            guard let workspace = place.workspace.flatMap(WindowManagerCommand.quoted) else { return true }
            // A workspace that does not exist yet opens on the output it was on.
            if let output = place.output.flatMap(WindowManagerCommand.quoted) { _ = try? connection.run("workspace \(workspace) output \(output)") }
            return (try? connection.run("\(target) move container to workspace \(workspace)")) != nil
        }
        if !frameFirst { steps.append(toWorkspace()) }
        if place.floating == true {
            // Its size first: resizing a floating window moves it.
            let floating = ["floating enable", "resize set \(max(place.width, 1)) px \(max(place.height, 1)) px", "move position \(place.x - origin.x) px \(place.y - origin.y) px"]
            let placed = floating.allSatisfy { (try? connection.run("\(target) \($0)")) != nil }
            if placed { settleFloatingFrame(of: id, at: place, origin: origin) }
            steps.append(placed)
        }
        if frameFirst { steps.append(toWorkspace()) }
        if place.fullscreen { steps.append((try? connection.run("\(target) fullscreen enable")) != nil) }
        return place.workspace != nil || place.floating == true || place.fullscreen ? steps.allSatisfy { $0 } : false
    }

    /// The frame a window manager reports and the one its commands take
    /// may differ by its decorations (i3 and sway count the title bar
    /// differently), and a window that has just mapped may still commit the
    /// size it was first given, late on a loaded machine: the frame is
    /// looked at again, 200 ms apart, and the commands sent again,
    /// corrected by what they missed, until it has held for 1 s (3 s at
    /// most, so that a restore of many floating windows stays within its
    /// budget).
    private func settleFloatingFrame(of id: UInt64, at place: SavedWindow, origin: (x: Int, y: Int)) {
        let target = "[con_id=\(id)]"
        let wanted = [place.x, place.y, max(place.width, 1), max(place.height, 1)]
        var commanded = wanted
        var held = 0
        for _ in 0 ..< 15 {
            usleep(200_000)
            guard let window = (try? connection.tree())?.windows.first(where: { UInt64($0.id) == id }) else { return }
            if window.frame == wanted {
                held += 1
                if held == 5 { return }
                continue
            }
            held = 0
            commanded = zip(commanded, zip(wanted, window.frame)).map { $0 + $1.0 - $1.1 }
            _ = try? connection.run("\(target) resize set \(max(commanded[2], 1)) px \(max(commanded[3], 1)) px")
            _ = try? connection.run("\(target) move position \(commanded[0] - origin.x) px \(commanded[1] - origin.y) px")
        }
    }
}
