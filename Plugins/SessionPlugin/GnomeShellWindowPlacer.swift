import Glibc
import PluginToolkit
import RestoredDBus

/// Window places on GNOME Shell, through restored's own extension
/// (`Extensions/gnome-shell`, installed by `scripts/install`): Mutter lets
/// no client read or move other clients' windows under Wayland, and the
/// extension does it from inside the shell, on the shell's session bus
/// connection (`org.restored1.WindowPlaces` at `/org/restored1/WindowPlaces`
/// on `org.gnome.Shell`), for restored and its plugin hosts only.
///
/// At a save, each window's workspace (by index: GNOME's workspaces have no
/// names), monitor (by connector), frame, and maximized, fullscreen and
/// minimized states. At a restore, the places are handed over before the
/// launches, as rules the extension applies as each new window of a
/// launch is created (matched by the desktop file its process was
/// launched from, as on the other desktops, or, for a window of a process
/// restored did not start, such as a single-instance app's, by its app's
/// desktop id), before it is first shown; a
/// saved monitor that is gone puts the window on the primary one, its
/// frame moved and shrunk inside it.
struct GnomeShellWindowPlacer: WindowPlacer {
    /// The bus name the shell owns, on which the extension serves.
    static let shellName = "org.gnome.Shell"
    /// The extension's object path.
    static let objectPath = "/org/restored1/WindowPlaces"
    /// The extension's interface.
    static let interface = "org.restored1.WindowPlaces"
    /// How long the rules handed over may wait for their windows, in the
    /// extension: past it, a window of the same app started by the user is
    /// not moved.
    static let rulesLifetime: UInt32 = 60

    /// Its session bus client, which the save's other readers of the
    /// desktop share (``GnomeTerminalTabs``).
    let bus: DBusClient

    /// A placer when the extension answers on the session bus within 2 s;
    /// nil without GNOME Shell, without the extension, or when it refuses.
    init?(environment: [String: String]) {
        let deadline = ContinuousClock.now + .seconds(2)
        guard let bus = try? DBusClient.connect(until: deadline),
              (try? bus.call("Monitors", of: Self.interface, at: Self.objectPath, on: Self.shellName, until: deadline)) != nil
        else { return nil }
        self.bus = bus
    }

    /// Calls `member` of the extension; nil when it does not answer within 5 s.
    private func call(_ member: String, _ arguments: [DBusValue] = []) -> [DBusValue]? {
        try? bus.call(member, of: Self.interface, at: Self.objectPath, on: Self.shellName, arguments: arguments, until: .now + .seconds(5))
    }

    func windows() -> [PlacedWindow]? {
        guard let list = call("Windows")?.first?.arrayValue else { return nil }
        return list.compactMap { value -> PlacedWindow? in
            guard let fields = value.stringKeyedValue, let id = fields["id"]?.uint64Value else { return nil }
            let number = { (key: String) in fields[key]?.int64Value.flatMap { Int(exactly: $0) } }
            let flag = { (key: String) in fields[key]?.boolValue ?? false }
            guard let x = number("x"), let y = number("y"), let width = number("width"), let height = number("height") else { return nil }
            let workspace = number("workspace").flatMap { $0 >= 0 ? $0 : nil }
            let monitor = fields["monitor"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            let pid = number("pid").flatMap { $0 > 0 ? Int32(exactly: $0) : nil }
            return PlacedWindow(
                id: id, pid: pid,
                place: SavedWindow(
                    desktop: workspace, output: monitor, fullscreen: flag("fullscreen"), maximized: flag("maximized"), minimized: flag("minimized"),
                    x: x, y: y, width: width, height: height
                ),
                applicationPath: fields["gtk-window-path"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 },
                recency: number("recency").flatMap { $0 >= 0 ? $0 : nil },
                title: fields["title"]?.stringValue
            )
        }
    }

    /// Hands the places over as rules: one per saved window, grouped by
    /// launch (`launch`), in the order the launch's windows are to take
    /// them; each named `LAUNCH.WINDOW`.
    func prepare(_ launches: [(entryPath: String, places: [SavedWindow])]) {
        var rules: [DBusValue] = []
        for (launch, entry) in launches.enumerated() {
            for (index, place) in entry.places.enumerated() {
                var fields: [(String, DBusValue)] = [
                    ("id", .string("\(launch).\(index)")), ("launched-file", .string(entry.entryPath)), ("launch", .uint32(UInt32(launch))),
                    ("desktop-id", .string(String(entry.entryPath.split(separator: "/").last ?? ""))),
                    ("x", .int32(Int32(clamping: place.x))), ("y", .int32(Int32(clamping: place.y))),
                    ("width", .int32(Int32(clamping: place.width))), ("height", .int32(Int32(clamping: place.height))),
                    ("maximized", .boolean(place.maximized)), ("fullscreen", .boolean(place.fullscreen)), ("minimized", .boolean(place.minimized)),
                ]
                if let desktop = place.desktop { fields.append(("workspace", .int32(Int32(clamping: desktop)))) }
                if let output = place.output { fields.append(("monitor", .string(output))) }
                rules.append(.properties(fields))
            }
        }
        guard !rules.isEmpty else { return }
        _ = call("SetRules", [.array(elementSignature: "a{sv}", rules), .uint32(Self.rulesLifetime)])
    }

    /// Waits until the extension has applied as many rules as `launches`
    /// have places (the launches that started), or `deadline`; how many it
    /// applied.
    func place(_ launches: [(entryPath: String, places: [SavedWindow])], before: Set<UInt64>, deadline: ContinuousClock.Instant) -> Int {
        let expected = launches.reduce(0) { $0 + $1.places.count }
        var applied = 0
        while true {
            applied = call("Applied")?.first?.arrayValue?.count ?? applied
            guard applied < expected, ContinuousClock.now < deadline else { break }
            usleep(100_000)
        }
        return applied
    }
}
