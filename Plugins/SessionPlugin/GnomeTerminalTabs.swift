import PluginToolkit
import ProcFiles
import RestoredDBus
import TerminalPrograms

/// Which of GNOME Terminal's tabs are in which of its windows: all of them
/// belong to one process (`gnome-terminal-server`), so `/proc` alone tells
/// only the tabs' shells.
///
/// Read from what the server offers on the session bus, none of which
/// changes anything on screen:
/// - its search provider (`GetInitialResultSet` of the empty term) lists
///   every tab, window by window in its own window list's order (the order
///   the user last used them, the last first; reversed in the answer), each
///   window's tabs in their order; each tab's shell names it
///   (`GNOME_TERMINAL_SCREEN` in its environment);
/// - each window's actions (`org.gtk.Actions` at the object path GNOME Shell
///   gives: `/org/gnome/Terminal/window/N`) tell how many tabs it holds
///   where they can: one when `active-tab` is disabled, the active one's
///   index plus one when `tab-switch-right` is disabled (it is the last);
///   one window's count left unknown is what the others leave;
/// - GNOME Shell (restored's extension) gives each window's object path,
///   its title (its active tab's) and its place in the order the user last
///   used the windows (made or focused), which is the order of the server's
///   own list;
/// - the search provider's `GetResultMetas` gives each tab's title.
///
/// The order GNOME Shell suggests is taken only where each window's title
/// is that of the active tab of its run in the list; otherwise the one
/// order whose titles agree (``TabbedWindowOrder``), else nothing: two
/// windows of as many tabs saved in the wrong order would come back in each
/// other's places.
///
/// Where more than one window's count is left unknown (GNOME Terminal 3.46,
/// whose `tab-switch-right` wraps around, leaves every window of several
/// tabs so), they are counted only when the session ends, the apps about
/// to be killed: each such window's last tab is made active
/// (`active-tab` -1) and the active tab set back at once. Otherwise the
/// tabs stay in one window, as before this was known.
struct GnomeTerminalTabs {
    /// The server's well-known name.
    static let busName = "org.gnome.Terminal"
    /// Its search provider's object path.
    static let searchProviderPath = "/org/gnome/Terminal/SearchProvider"

    private let bus: DBusClient

    /// The server's tabs as `bus` (the session bus) tells them, when
    /// `server` owns ``busName`` there.
    private init?(server: Int32, on bus: DBusClient) {
        guard (try? bus.processID(of: Self.busName, until: .now + .seconds(2))) == server else { return nil }
        self.bus = bus
    }

    /// Calls `member` of `interface` at `path` on the server; nil when it
    /// does not answer within 2 s.
    private func call(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue]) -> [DBusValue]? {
        try? bus.call(member, of: interface, at: path, on: Self.busName, arguments: arguments, until: .now + .seconds(2))
    }

    /// Whether action `name` of window `path` is enabled, and its state when it is an `i`.
    private func action(_ name: String, of path: String) -> (enabled: Bool, state: Int?)? {
        guard let fields = call(path, "org.gtk.Actions", "Describe", [.string(name)])?.first?.structureValue, fields.count == 3,
              let enabled = fields[0].boolValue
        else { return nil }
        let state = fields[2].arrayValue?.first?.int64Value.flatMap { Int(exactly: $0) }
        return (enabled, state)
    }

    /// Makes tab `index` of window `path` the active one (-1: the last).
    private func activate(tab index: Int32, of path: String) -> Bool {
        call(path, "org.gtk.Actions", "SetState", [.string("active-tab"), .variant(.int32(index)), .dictionary(keySignature: "s", valueSignature: "v", [])]) != nil
    }

    /// How many tabs window `path` holds, as far as its actions tell
    /// without a change: nil when they do not.
    private func tabCount(of path: String) -> (count: Int?, active: Int)? {
        guard let active = action("active-tab", of: path), let index = active.state, index >= 0 else { return nil }
        if !active.enabled { return (1, 0) }
        guard let right = action("tab-switch-right", of: path) else { return nil }
        return (right.enabled ? nil : index + 1, index)
    }

    /// Counts the tabs of window `path` whose active tab is `active` by
    /// making its last one active and setting `active` back.
    private func countByActivating(_ path: String, active: Int) -> Int? {
        guard activate(tab: -1, of: path), let last = action("active-tab", of: path)?.state else { return nil }
        _ = activate(tab: Int32(clamping: active), of: path)
        return last + 1
    }

    /// Why the tabs could not be grouped by window.
    struct Untold: Error, CustomStringConvertible {
        /// What was missing, in a few words.
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The tabs of the GNOME Terminal server `server` grouped by window:
    /// `shells` (read below it, with their processes) put in the order of
    /// `windows` (the server's windows as GNOME Shell lists them), window by
    /// window, and the number of them in each window; whether the windows'
    /// titles told their order where GNOME Shell's order of use did not fit
    /// the server's list. Throws ``Untold``
    /// when GNOME Shell or the server does not tell, or when what they tell
    /// does not add up; `countAtEnd`: windows whose count the actions do
    /// not tell are counted by activating their last tab (the session ends).
    static func group(
        _ shells: TerminalShells, server: Int32, on bus: DBusClient, windows: [PlacedWindow], countAtEnd: Bool, proc: String = "/proc"
    ) throws(Untold) -> (shells: [TerminalShells.Shell], counts: [Int], toldByTitles: Bool) {
        guard shells.pids.count == shells.shells.count else { throw Untold("its shells were not read from it") }
        guard windows.allSatisfy({ $0.applicationPath != nil && $0.recency != nil }) else {
            throw Untold("GNOME Shell does not say each window's object path and use")
        }
        guard let server = GnomeTerminalTabs(server: server, on: bus) else { throw Untold("it does not own \(busName) on the session bus") }
        // Every tab, in the server's window list order.
        guard let listed = server.call(searchProviderPath, "org.gnome.Shell.SearchProvider2", "GetInitialResultSet", [.strings([""])])?.first?.arrayValue
        else { throw Untold("its search provider does not answer (shell-integration-enabled off?)") }
        let ids = Array(listed.compactMap(\.stringValue).reversed())
        // The windows in that order as GNOME Shell suggests it: the one used last first.
        let byUse = windows.indices.sorted { windows[$0].recency! < windows[$1].recency! }
        var counts = Array(repeating: Int?.none, count: windows.count)
        var actives = Array(repeating: 0, count: windows.count)
        for index in windows.indices {
            guard let found = server.tabCount(of: windows[index].applicationPath!) else {
                throw Untold("window \(windows[index].applicationPath!) does not describe its active-tab action")
            }
            counts[index] = found.count
            actives[index] = found.active
        }
        let unknown = counts.indices.filter { counts[$0] == nil }
        if unknown.count == 1 {
            counts[unknown[0]] = ids.count - counts.compactMap { $0 }.reduce(0, +)
        } else if unknown.count > 1 {
            guard countAtEnd else { throw Untold("\(unknown.count) of its windows hold several tabs, counted only as the session ends") }
            for index in unknown {
                counts[index] = server.countByActivating(windows[index].applicationPath!, active: actives[index])
            }
        }
        let known = counts.compactMap { $0 }
        guard known.count == counts.count, known.reduce(0, +) == ids.count,
              zip(known, actives).allSatisfy({ $0.0 > $0.1 })
        else { throw Untold("its windows' tabs (\(byUse.map { counts[$0].map(String.init) ?? "?" })) do not add up to its \(ids.count) tabs") }
        // Each tab's title, which the title of the window it is active in shows.
        guard let metas = server.call(searchProviderPath, "org.gnome.Shell.SearchProvider2", "GetResultMetas", [.strings(ids)])?.first?.arrayValue
        else { throw Untold("its search provider does not tell its tabs' titles") }
        var titleOfTab: [String: String] = [:]
        for meta in metas {
            guard let fields = meta.stringKeyedValue, let id = fields["id"]?.stringValue else { continue }
            titleOfTab[id] = fields["name"]?.stringValue ?? ""
        }
        guard ids.allSatisfy({ titleOfTab[$0] != nil }) else { throw Untold("its search provider does not tell every tab's title") }
        let matching = TabbedWindowOrder(
            windows: windows.indices.map { TabbedWindowOrder.Window(tabCount: known[$0], activeTab: actives[$0], title: windows[$0].title) },
            tabTitles: ids.map { titleOfTab[$0] }
        )
        guard let order = matching.order(suggested: byUse) else {
            // No titles in the reason: it is said once per server and reason, and titles change with every prompt.
            throw Untold("its \(windows.count) windows' titles do not tell which of its \(ids.count) tabs each holds (no order of the windows, or more than one, has each window's title on its active tab)")
        }
        let tabs = ids.map { String($0.map { $0 == "-" ? "_" : $0 }) }
        // Each tab's shell, by the screen its environment names.
        var shellOfTab: [String: Int] = [:]
        for (index, pid) in shells.pids.enumerated() {
            guard let screen = ProcProcess.environment(of: pid, prefix: "GNOME_TERMINAL_SCREEN=", proc: proc)["GNOME_TERMINAL_SCREEN"],
                  let name = screen.split(separator: "/").last
            else { throw Untold("shell \(pid) names no tab of it") }
            shellOfTab[String(name)] = index
        }
        var groups = Array(repeating: [Int](), count: windows.count)
        var start = 0
        for index in order {
            // A tab with no shell saved (it ran tmux) is left out of its window.
            groups[index] = tabs[start ..< start + known[index]].compactMap { shellOfTab[$0] }
            start += known[index]
        }
        guard groups.allSatisfy({ !$0.isEmpty }), groups.joined().count == shells.shells.count else {
            throw Untold("its tabs and its shells do not match")
        }
        return (groups.joined().map { shells.shells[$0] }, groups.map(\.count), order != byUse)
    }
}
