public import DesktopEntries
import AppLaunching
import Glibc
import ProcFiles
import SavedText
import SystemSupport

/// What restored trusts of a player: the desktop entry it claims and the
/// program behind its name.
///
/// `DesktopEntry` and `xesam:url` are claims any peer on the session bus
/// can make: a player is saved only when the process that owns its name
/// (as the bus knows it) runs its entry's program, and restored only into
/// an installed entry that plays media and does not run the files it is
/// handed.
public enum MediaPlayerPolicy {
    /// Why restored restores into no player of `entry`; nil when it does:
    /// an installed app (not hidden) whose categories say it plays media
    /// (`AudioVideo`, `Audio` or `Video`), no web browser, and a program
    /// that shows what it is handed instead of running it.
    public static func reasonNotRestored(_ entry: DesktopEntry?) -> String? {
        guard let entry, entry.isLaunchable, let exec = entry.exec else { return "no installed desktop entry" }
        guard !entry.categories.contains("WebBrowser") else { return "a web browser (its tabs come back with its own session)" }
        guard entry.categories.contains(where: { ["AudioVideo", "Audio", "Video"].contains($0) }) else {
            return "its desktop entry (\(entry.id)) is no media player's (Categories has no AudioVideo)"
        }
        guard !DesktopAppLauncher.programsRunningFiles.contains(ProgramName.of(exec.program)) else {
            return "its desktop entry (\(entry.id)) starts \(exec.program), which runs the files it is handed"
        }
        return nil
    }

    /// Whether process `pid` runs `entry`'s program: its executable
    /// (`/proc/PID/exe`) is the very file the entry's `Exec` program or
    /// `TryExec` names, found in `searchPath` when it is no path, links
    /// resolved. A program merely named like it (`~/.cache/x/mpv`) is not;
    /// nor is a player run by an interpreter or a sandbox launcher (Python
    /// players, `flatpak run`), whose process is another program's.
    public static func process(_ pid: Int32, runs entry: DesktopEntry, searchPath: String, proc: String = "/proc") -> Bool {
        guard var executable = ProcProcess.executable(of: pid, proc: proc) else { return false }
        if executable.hasSuffix(" (deleted)") { executable.removeLast(" (deleted)".count) }
        let programs = [entry.exec?.program, entry.tryExec].compactMap { $0 }.compactMap { program in
            program.hasPrefix("/") ? program : ExecutableSearchPath.executable(named: program, in: searchPath)
        }
        return programs.contains { resolved($0) == executable }
    }

    /// `path` with every link resolved, as `/proc/PID/exe` shows a program.
    static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The player's claims as the archive keeps them, or why it is left
    /// out: the one rule of both plugins (the session plugin reopens a
    /// player this saves without its files). `DesktopEntry` must name an
    /// installed media player's entry whose program the name's process
    /// runs; what it plays must be a file or document URL restored
    /// reopens, kept in the form ``DesktopAppLauncher/keptForm(of:keepingQueries:)`` says.
    public static func saved(
        _ state: MediaPlayerState, of player: MediaPlayer, entries: DesktopEntryIndex, searchPath: String, keepingQueries: Bool
    ) -> Result<SavedMediaPlayer, LeftOutMediaPlayer> {
        guard let claim = state.desktopEntry, let desktopID = desktopID(claimed: claim) else {
            return .failure(LeftOutMediaPlayer(reason: "it names no desktop entry (DesktopEntry)", isNotable: true))
        }
        let entry = entries[desktopID]
        if let reason = reasonNotRestored(entry) {
            return .failure(LeftOutMediaPlayer(reason: reason, isNotable: true))
        }
        guard let entry, process(player.pid, runs: entry, searchPath: searchPath) else {
            let program = ProcProcess.executable(of: player.pid).map(SavedText.printable) ?? "an unknown program"
            return .failure(LeftOutMediaPlayer(reason: "it claims to be \(desktopID), but its process runs \(program)", isNotable: true))
        }
        guard let url = state.url, !url.isEmpty, let status = state.status else {
            return .failure(LeftOutMediaPlayer(reason: "it plays nothing", isNotable: false))
        }
        guard DesktopAppLauncher.mayOpen(url, with: entry) else {
            return .failure(LeftOutMediaPlayer(reason: "what it plays is no file or document URL restored reopens", isNotable: true))
        }
        return .success(SavedMediaPlayer(
            desktopID: desktopID, url: DesktopAppLauncher.keptForm(of: url, keepingQueries: keepingQueries),
            position: status == .stopped ? 0 : state.position ?? 0, playing: status == .playing
        ))
    }

    /// The desktop file id a player's `DesktopEntry` property names
    /// (`vlc` → `vlc.desktop`), nil for a value that is no id.
    public static func desktopID(claimed value: String) -> String? {
        guard !value.isEmpty, value.count <= 255, !value.contains("/"), !value.hasPrefix("."),
              value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else { return nil }
        return value.hasSuffix(".desktop") ? value : value + ".desktop"
    }
}
