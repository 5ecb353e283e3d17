import FoundationEssentials
import ProcFiles

/// The session's window manager, as far as it lets a client read where
/// windows are and put them there: one small interface over each kind
/// (``EWMHWindowPlacer`` on X11, ``TilingWindowPlacer`` on sway and i3,
/// ``GnomeShellWindowPlacer`` through restored's GNOME Shell extension,
/// ``KWinWindowPlacer`` through restored's KWin script).
///
/// A placer either moves the windows of a restore once they map
/// (``MovingWindowPlacer``) or hands their places to the window manager
/// before the launches, which applies them as each window is created
/// (GNOME Shell, where the extension places a window before it is first
/// shown).
protocol WindowPlacer {
    /// The windows now, with their process when known; nil when the window
    /// manager lists none.
    func windows() -> [PlacedWindow]?
    /// Called before the launches of a restore with their places (the
    /// entry's file and the places its instance's windows had, in launch
    /// order).
    func prepare(_ launches: [(entryPath: String, places: [SavedWindow])])
    /// Called after the launches: places the windows those launches made
    /// (a moving placer: not among `before`, the ids of the windows there
    /// before them; a placer that was handed the places applies them to
    /// new windows only), giving up at `deadline`; how many were placed.
    func place(_ launches: [(entryPath: String, places: [SavedWindow])], before: Set<UInt64>, deadline: ContinuousClock.Instant) -> Int
}

/// A placer that moves each window of a restore once it has mapped, as a
/// pager or a user's binding would.
protocol MovingWindowPlacer: WindowPlacer {
    /// Moves window `id` to `place`; false when the window manager refused.
    func move(_ id: UInt64, to place: SavedWindow) -> Bool
    /// Looks once at the windows moved whose place the window manager
    /// may not have taken yet, and asks again for what they missed; false
    /// once every one has held its place.
    func settle() -> Bool
}

extension MovingWindowPlacer {
    /// A window manager that takes a place as it is asked has nothing to settle.
    func settle() -> Bool { false }

    /// Nothing is handed over: the windows are moved once they map.
    func prepare(_ launches: [(entryPath: String, places: [SavedWindow])]) {}

    /// How long the places of windows moved are looked at, at least,
    /// after the last was moved, past the placement's deadline.
    static var settlingAfterLastMove: Duration { .seconds(3) }

    /// Places, for each launch in `launches` (in launch order: the entry's
    /// file and the places its instance's windows had), the windows that
    /// launch made once they map: a window is a launch's when its process
    /// was started from that entry (`GIO_LAUNCHED_DESKTOP_FILE`) and was not
    /// there before (`before`), and their places are looked at until they
    /// hold (``settle()``). Gives up at `deadline`.
    func place(_ launches: [(entryPath: String, places: [SavedWindow])], before: Set<UInt64>, deadline: ContinuousClock.Instant) -> Int {
        var waiting = launches.filter { !$0.places.isEmpty }
        var placed = 0
        var used = before
        // What /proc says of each window's process, read once for the whole
        // placement (it does not change while the process lives), never in
        // the sort or the filters below.
        var processes: [Int32: (start: UInt64, launchedFile: String?)] = [:]
        var lastMove = ContinuousClock.now
        while true {
            let windows = waiting.isEmpty ? [] : (windows() ?? []).filter { !used.contains($0.id) && $0.pid != nil }
            for pid in Set(windows.compactMap(\.pid)) where processes[pid] == nil {
                processes[pid] = (ProcProcess.startTime(of: pid), launchedFile(of: pid))
            }
            // New windows by their process's start, oldest first: the order launches were made in.
            let fresh = windows.sorted { processes[$0.pid!]!.start < processes[$1.pid!]!.start }
            var still: [(entryPath: String, places: [SavedWindow])] = []
            for launch in waiting {
                let mine = fresh.filter { !used.contains($0.id) && processes[$0.pid!]?.launchedFile == launch.entryPath }
                guard let first = mine.first else {
                    still.append(launch)
                    continue
                }
                // All windows of that process are this launch's.
                let windows = mine.filter { $0.pid == first.pid }
                for (window, place) in zip(windows, launch.places) where move(window.id, to: place) { placed += 1 }
                lastMove = .now
                used.formUnion(windows.map(\.id))
            }
            waiting = still
            // A window placed near the deadline still has its place looked at for a while.
            let settling = settle() && ContinuousClock.now < max(deadline, lastMove + Self.settlingAfterLastMove)
            guard (!waiting.isEmpty && ContinuousClock.now < deadline) || settling else { break }
            // Windows still awaited are looked for often (a window moved
            // late is a window seen in the wrong place); frames only
            // settling, less.
            usleep(waiting.isEmpty ? 100_000 : 20_000)
        }
        return placed
    }

    /// The desktop file a process was launched from (`GIO_LAUNCHED_DESKTOP_FILE`).
    private func launchedFile(of pid: Int32) -> String? {
        ProcProcess.environment(of: pid, prefix: "GIO_LAUNCHED_DESKTOP_FILE=")["GIO_LAUNCHED_DESKTOP_FILE"]
    }
}

/// A window a placer found: its id (the placer's own: the KWin placer's is
/// the window's place in the script's list), its process, where it is.
struct PlacedWindow: Hashable, Sendable {
    var id: UInt64
    var pid: Int32?
    var place: SavedWindow
    /// Its GtkApplication window's object path on its app's connection
    /// (`/org/gnome/Terminal/window/3`), where the window manager says (GNOME Shell).
    var applicationPath: String?
    /// Its place among the windows the user last used, 0 the last (GNOME Shell).
    var recency: Int?
    /// Its title (GNOME Shell).
    var title: String?
}

/// The placer of the session `environment` describes: sway's or i3's IPC
/// when one answers (i3 ignores EWMH requests), else, where
/// `XDG_CURRENT_DESKTOP` names GNOME, restored's GNOME Shell extension
/// when it answers, or where it names KDE, restored's KWin script when
/// KWin's scripting answers (on Wayland, the only ways; on X11 they place
/// a window as it appears, where EWMH moves it after), else EWMH on
/// `DISPLAY`; nil when none answers. Other desktops pay no D-Bus look.
func windowPlacer(environment: [String: String]) -> (any WindowPlacer)? {
    if let tiling = TilingWindowPlacer(environment: environment) { return tiling }
    let desktops = Set((environment["XDG_CURRENT_DESKTOP"] ?? "").split(separator: ":").map { $0.uppercased() })
    if desktops.contains("GNOME"), let shell = GnomeShellWindowPlacer(environment: environment) { return shell }
    if desktops.contains("KDE"), let kwin = KWinWindowPlacer(environment: environment) { return kwin }
    return EWMHWindowPlacer(environment: environment)
}

extension WindowPlacer {
    /// Each process's windows, in the order the window manager lists them;
    /// nil when it lists none.
    func windowsByProcess() -> [Int32: [PlacedWindow]]? {
        guard let windows = windows(), !windows.isEmpty else { return nil }
        return Dictionary(grouping: windows.filter { $0.pid != nil }, by: { $0.pid! })
    }

    /// The ids of the windows there now.
    func windowIDs() -> Set<UInt64> {
        Set((windows() ?? []).map(\.id))
    }
}

#if canImport(Glibc)
import Glibc
#endif
