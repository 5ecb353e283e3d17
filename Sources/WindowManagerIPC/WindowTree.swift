import FoundationEssentials

/// The windows of sway's or i3's tree (`GET_TREE`), each with where it is:
/// its workspace and output, tiled or floating, its frame, fullscreen.
public struct WindowTree: Sendable {
    /// One window.
    public struct Window: Hashable, Sendable {
        /// The container's id (`[con_id=N]` in commands).
        public var id: Int
        /// The process that made it: sway says so; for i3, see ``xWindow``.
        public var pid: Int32?
        /// The X window (i3, and X clients under sway's Xwayland).
        public var xWindow: UInt32?
        /// The Wayland app id (sway).
        public var appID: String?
        /// The X class (i3, Xwayland).
        public var windowClass: String?
        /// The workspace's name.
        public var workspace: String
        /// The output's name.
        public var output: String
        /// Whether it floats.
        public var floating: Bool
        /// Whether it is fullscreen.
        public var fullscreen: Bool
        /// Its frame on the screen (x, y, width, height): for a floating
        /// window, its outer frame, title bar included, as `move absolute
        /// position` and `resize set` take it.
        public var frame: [Int]
    }

    /// Every window, in the tree's order.
    public var windows: [Window]

    /// The windows of a `GET_TREE` reply.
    public init(json: [UInt8]) throws {
        let root = try JSONDecoder().decode(Node.self, from: Data(json))
        var windows: [Window] = []
        Self.collect(root, workspace: nil, output: nil, floating: false, into: &windows)
        self.windows = windows
    }

    private static func collect(_ node: Node, workspace: String?, output: String?, floating: Bool, into windows: inout [Window]) {
        let output = node.type == "output" ? node.name : output
        let workspace = node.type == "workspace" ? node.name : workspace
        let isWindow = (node.type == "con" || node.type == "floating_con") && (node.pid != nil || node.window != nil) && (node.nodes ?? []).isEmpty
        if isWindow, let workspace, let output, let rect = node.rect {
            let floats = floating || node.type == "floating_con"
            let title = floats ? node.deco_rect?.height ?? 0 : 0
            windows.append(Window(
                id: node.id, pid: node.pid, xWindow: node.window, appID: node.app_id, windowClass: node.window_properties?.class,
                workspace: workspace, output: output, floating: floats,
                fullscreen: (node.fullscreen_mode ?? 0) != 0, frame: [rect.x, rect.y - title, rect.width, rect.height + title]
            ))
        }
        for child in node.nodes ?? [] { collect(child, workspace: workspace, output: output, floating: floating, into: &windows) }
        for child in node.floating_nodes ?? [] { collect(child, workspace: workspace, output: output, floating: true, into: &windows) }
    }

    /// A node as the reply writes it (the fields read).
    private struct Node: Decodable {
        struct Rect: Decodable {
            var x: Int
            var y: Int
            var width: Int
            var height: Int
        }
        struct Properties: Decodable {
            var `class`: String?
        }
        var id: Int
        var type: String
        var name: String?
        var pid: Int32?
        var window: UInt32?
        var app_id: String?
        var window_properties: Properties?
        var rect: Rect?
        var deco_rect: Rect?
        var fullscreen_mode: Int?
        var nodes: [Node]?
        var floating_nodes: [Node]?
    }
}
