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
final class TilingWindowPlacer: MovingWindowPlacer {
    let connection: WindowManagerConnection
    /// The X server i3 manages, for the processes of its windows.
    let display: X11Connection?
    /// The floating windows moved whose frame has not held yet, by container id.
    private var settling: [UInt64: FrameSettling] = [:]
    /// Whether the window manager is sway (whose commands differ from i3's in
    /// what they do to a floating window's workspace).
    private lazy var isSway = (try? connection.isSway()) ?? false

    /// A floating window's place being settled: the frame wanted, the one
    /// last commanded (the wanted one corrected by what the decorations
    /// took), the origin of its output, the workspace it was moved to, and
    /// since when it has held.
    private struct FrameSettling {
        var wanted: [Int]
        var commanded: [Int]
        var origin: (x: Int, y: Int)
        var place: SavedWindow
        var heldSince: ContinuousClock.Instant?
    }

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
        if !isSway { steps.append(moveToWorkspace(id, place)) }
        if place.floating == true {
            // Its size first: resizing a floating window moves it.
            let floating = ["floating enable", "resize set \(max(place.width, 1)) px \(max(place.height, 1)) px", "move position \(place.x - origin.x) px \(place.y - origin.y) px"]
            let placed = floating.allSatisfy { (try? connection.run("\(target) \($0)")) != nil }
            if placed {
                let wanted = [place.x, place.y, max(place.width, 1), max(place.height, 1)]
                settling[id] = FrameSettling(wanted: wanted, commanded: wanted, origin: origin, place: place)
            }
            steps.append(placed)
        }
        if isSway { steps.append(moveToWorkspace(id, place)) }
        if place.fullscreen { steps.append((try? connection.run("\(target) fullscreen enable")) != nil) }
        return place.workspace != nil || place.floating == true || place.fullscreen ? steps.allSatisfy { $0 } : false
    }

    /// Moves window `id` to the workspace of `place`, on its output when the
    /// workspace does not exist yet; true when it has none that can be named.
    private func moveToWorkspace(_ id: UInt64, _ place: SavedWindow) -> Bool {
        guard let workspace = place.workspace.flatMap(WindowManagerCommand.quoted) else { return true }
        // A workspace that does not exist yet opens on the output it was on.
        if let output = place.output.flatMap(WindowManagerCommand.quoted) { _ = try? connection.run("workspace \(workspace) output \(output)") }
        return (try? connection.run("[con_id=\(id)] move container to workspace \(workspace)")) != nil
    }

    /// The most a frame's side is taken to be off by decorations alone
    /// (a title bar and borders), in pixels.
    static let decorationAllowance = 64

    /// How long a floating window's frame must hold to be settled.
    static let settledAfter: Duration = .seconds(2)

    /// The frame a window manager reports and the one its commands take
    /// may differ by its decorations (i3 and sway count the title bar
    /// differently), and a window that has just mapped may still commit the
    /// size it was first given, seconds late on a loaded machine (sway then
    /// takes the client's size over the one commanded): each floating
    /// window moved is looked at again on every call, and the commands
    /// sent again, corrected by what they missed (by a decoration's size at
    /// most), until its frame has held for ``settledAfter``.
    func settle() -> Bool {
        guard !settling.isEmpty else { return false }
        guard let windows = try? connection.tree().windows else { return true }
        let now = ContinuousClock.now
        for (id, var frame) in settling {
            guard let window = windows.first(where: { UInt64($0.id) == id }) else {
                // Closed by its user.
                settling[id] = nil
                continue
            }
            let onWorkspace = frame.place.workspace.flatMap(WindowManagerCommand.quoted) == nil || window.workspace == frame.place.workspace
            if window.frame == frame.wanted && onWorkspace {
                frame.heldSince = frame.heldSince ?? now
                settling[id] = frame.heldSince!.duration(to: now) >= Self.settledAfter ? nil : frame
                continue
            }
            frame.heldSince = nil
            // A frame off by more than a decoration can be (a window that
            // has not taken the last commands yet, or a client that chose
            // its own size) says nothing about the decorations: the
            // commands go again unchanged, and the correction cannot run
            // away from the saved frame.
            let missed = zip(frame.wanted, window.frame).map { $0 - $1 }
            if missed.allSatisfy({ abs($0) <= Self.decorationAllowance }) {
                let limit = Self.decorationAllowance
                frame.commanded = zip(zip(frame.commanded, missed), frame.wanted).map { min(max($0.0 + $0.1, $1 - limit), $1 + limit) }
            }
            let target = "[con_id=\(id)]"
            if window.frame != frame.wanted {
                _ = try? connection.run("\(target) resize set \(max(frame.commanded[2], 1)) px \(max(frame.commanded[3], 1)) px")
                _ = try? connection.run("\(target) move position \(frame.commanded[0] - frame.origin.x) px \(frame.commanded[1] - frame.origin.y) px")
            }
            // sway takes a window it positions to the workspace shown.
            if isSway || !onWorkspace { _ = moveToWorkspace(id, frame.place) }
            settling[id] = frame
        }
        return !settling.isEmpty
    }
}
