public import DesktopEntries
import AppLaunching
import ProcFiles
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

    /// Whether process `pid` runs `entry`'s program: its executable's name
    /// is that of the entry's `Exec` program or `TryExec`.
    public static func process(_ pid: Int32, runs entry: DesktopEntry, proc: String = "/proc") -> Bool {
        guard let executable = ProcProcess.executable(of: pid, proc: proc) else { return false }
        let name = ProgramName.of(executable)
        let programs = [entry.exec?.program, entry.tryExec].compactMap { $0 }.map { ProgramName.of($0) }
        return programs.contains(name)
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
