import Foundation
import ProcFiles
import X11Client

/// Window workspaces and positions on X11, through EWMH: read at a save
/// for each instance's windows (`_NET_WM_PID`), applied at a restore to
/// the windows the relaunched instances map, as a pager would ask.
///
/// Wayland has no such thing a client may use: a Wayland compositor
/// places windows itself and tells no other client where they are, so
/// there the apps come back where the compositor puts them.
struct WindowPlacer {
    let connection: X11Connection

    /// A placer for `environment`'s `DISPLAY` (and `XAUTHORITY`); nil
    /// without an X display that answers.
    init?(environment: [String: String]) {
        guard let name = environment["DISPLAY"], let display = X11Display(name) else { return nil }
        let authority = environment["XAUTHORITY"] ?? environment["HOME"].map { $0 + "/.Xauthority" }
        guard let connection = try? X11Connection(display: display, authorityFile: authority, timeout: .seconds(2)) else { return nil }
        self.connection = connection
    }

    /// The managed windows, by the process that made them; nil when the
    /// window manager lists none (no EWMH window manager).
    func windowsByProcess() -> [Int32: [ManagedWindow]]? {
        guard let windows = try? connection.managedWindows(), !windows.isEmpty else { return nil }
        return Dictionary(grouping: windows.filter { $0.pid != nil }, by: { $0.pid! })
    }

    /// Places, for each launch in `launches` (in launch order: the entry's
    /// file and the placements its instance's windows had), the windows
    /// that launch made once they map: a window is a launch's when its
    /// process was started from that entry (`GIO_LAUNCHED_DESKTOP_FILE`)
    /// and was not there before (`before`). Gives up at `deadline`.
    func place(_ launches: [(entryPath: String, placements: [WindowPlacement])], before: Set<UInt32>, deadline: ContinuousClock.Instant) -> Int {
        var waiting = launches.filter { !$0.placements.isEmpty }
        var placed = 0
        var used: Set<UInt32> = before
        // What /proc says of each window's process, read once for the whole
        // placement (it does not change while the process lives), never in
        // the sort or the filters below.
        var processes: [Int32: (start: UInt64, launchedFile: String?)] = [:]
        while !waiting.isEmpty {
            let windows = ((try? connection.managedWindows()) ?? []).filter { !used.contains($0.id) && $0.pid != nil }
            for pid in Set(windows.compactMap(\.pid)) where processes[pid] == nil {
                processes[pid] = (ProcProcess.startTime(of: pid), Self.launchedFile(of: pid))
            }
            // New windows by their process's start, oldest first: the order launches were made in.
            let fresh = windows.sorted { processes[$0.pid!]!.start < processes[$1.pid!]!.start }
            var still: [(entryPath: String, placements: [WindowPlacement])] = []
            for launch in waiting {
                let mine = fresh.filter { !used.contains($0.id) && processes[$0.pid!]?.launchedFile == launch.entryPath }
                guard let first = mine.first else {
                    still.append(launch)
                    continue
                }
                // All windows of that process are this launch's.
                let windows = mine.filter { $0.pid == first.pid }
                for (window, placement) in zip(windows, launch.placements) {
                    if (try? connection.place(window.id, at: placement)) != nil { placed += 1 }
                }
                used.formUnion(windows.map(\.id))
            }
            waiting = still
            guard !waiting.isEmpty, ContinuousClock.now < deadline else { break }
            usleep(100_000)
        }
        return placed
    }

    /// The desktop file a process was launched from (`GIO_LAUNCHED_DESKTOP_FILE`).
    static func launchedFile(of pid: Int32) -> String? {
        ProcProcess.environment(of: pid, prefix: "GIO_LAUNCHED_DESKTOP_FILE=")["GIO_LAUNCHED_DESKTOP_FILE"]
    }
}
