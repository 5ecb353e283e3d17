import RestorationKit
import SavedText

/// Where one window of an app instance was, as the session's window
/// manager told it: on X11 (EWMH) its workspace number, monitor (RandR's
/// name) and frame; on sway
/// and i3 its workspace and output by name, tiled or floating, its frame,
/// fullscreen; on GNOME Shell (restored's extension) its workspace number,
/// monitor by connector, frame, maximized, fullscreen, minimized. Saved
/// with its instance; read back as untrusted text.
struct SavedWindow: Hashable, Sendable {
    /// The workspace number from 0 (EWMH's `_NET_WM_DESKTOP`, GNOME Shell's index).
    var desktop: Int?
    /// The workspace's name (sway, i3).
    var workspace: String?
    /// The output's name (sway, i3), the monitor's (RandR on X11, KWin on
    /// Plasma 6) or its connector (GNOME Shell).
    var output: String?
    /// Whether it floated (sway, i3); nil where the window manager has no tiling.
    var floating: Bool?
    /// Whether it was fullscreen.
    var fullscreen = false
    /// Whether it was maximized (GNOME Shell).
    var maximized = false
    /// Whether it was minimized (GNOME Shell).
    var minimized = false
    /// Its frame: left, top, width, height.
    var x: Int
    var y: Int
    var width: Int
    var height: Int

    /// The workspace numbers a restore asks for; others are dropped.
    static let workspaceNumbers = 0 ..< 64

    /// The value stored in the archive.
    var stateValue: StateValue {
        var fields: [String: StateValue] = [
            "x": .int64(Int64(x)), "y": .int64(Int64(y)), "width": .int64(Int64(width)), "height": .int64(Int64(height)),
        ]
        if let desktop { fields["desktop"] = .int64(Int64(desktop)) }
        if let workspace { fields["workspace"] = .string(workspace) }
        if let output { fields["output"] = .string(output) }
        if let floating { fields["floating"] = .bool(floating) }
        if fullscreen { fields["fullscreen"] = .bool(true) }
        if maximized { fields["maximized"] = .bool(true) }
        if minimized { fields["minimized"] = .bool(true) }
        return .dictionary(fields)
    }

    /// A window as ``stateValue`` stored it; nil when its frame does not
    /// read. Names that hold a control character are dropped (they would
    /// reach a window manager's command).
    init?(stateValue value: StateValue) {
        guard case .dictionary(let fields) = value else { return nil }
        let number = { (key: String) in fields[key].flatMap(Int.init(stateValue:)) }
        let text = { (key: String) -> String? in
            guard case .string(let text)? = fields[key], !text.isEmpty, SavedText.isPrintable(text) else { return nil }
            return text
        }
        let flag = { (key: String) -> Bool? in
            guard case .bool(let flag)? = fields[key] else { return nil }
            return flag
        }
        guard let x = number("x"), let y = number("y"), let width = number("width"), let height = number("height") else { return nil }
        // A workspace number past any desktop's (a hostile archive's) is not
        // asked for: a window manager would make workspaces up to it.
        let desktop = number("desktop").flatMap { Self.workspaceNumbers.contains($0) ? $0 : nil }
        self.init(desktop: desktop, workspace: text("workspace"), output: text("output"), floating: flag("floating"),
                  fullscreen: flag("fullscreen") ?? false, maximized: flag("maximized") ?? false, minimized: flag("minimized") ?? false,
                  x: x, y: y, width: width, height: height)
    }

    /// A window.
    init(
        desktop: Int? = nil, workspace: String? = nil, output: String? = nil, floating: Bool? = nil,
        fullscreen: Bool = false, maximized: Bool = false, minimized: Bool = false, x: Int, y: Int, width: Int, height: Int
    ) {
        self.desktop = desktop
        self.workspace = workspace
        self.output = output
        self.floating = floating
        self.fullscreen = fullscreen
        self.maximized = maximized
        self.minimized = minimized
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}
