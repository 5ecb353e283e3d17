public import Foundation
import RestoredDBus

/// restored's `Status`, as `restored-ctl status` shows it.
///
/// JSON shape (`status --json`): `state`, `version`, `lockHeld`, `logind`,
/// `sessionManager`, `apps`, `pluginsLoaded`, `pluginsRefused`,
/// `stateDirectory`, `lastSave` (null, or `time`, `trigger`, `saved`,
/// `failed`), `desktop` (`phase`: `none`, `running` or `ending`; `name`,
/// `since`, `startedBy` of the desktop there, or null; `endedBy`, `ended`
/// of the last one that ended, or null), `problems` (a list of lines, most
/// urgent first).
public struct DaemonStatus: Encodable, Hashable, Sendable {
    /// The last save of every app.
    public struct LastSave: Encodable, Hashable, Sendable {
        /// When it finished.
        public var time: Date
        /// What caused it.
        public var trigger: String
        /// Apps saved.
        public var saved: UInt32
        /// Apps that failed.
        public var failed: UInt32
    }

    /// The login's desktop, as restored follows it.
    public struct Desktop: Encodable, Hashable, Sendable {
        /// `none` (none yet, or the last one ended), `running` or `ending`.
        public var phase: String
        /// The desktop there: its display, window manager and session manager.
        public var name: String?
        /// When restored saw it start.
        public var since: Date?
        /// What made restored see it.
        public var startedBy: String?
        /// What ended the last desktop.
        public var endedBy: String?
        /// When the last desktop ended.
        public var ended: Date?
    }

    /// `starting`, `restoring`, `running`, `saving` or `stopping`.
    public var state: String
    /// restored's version.
    public var version: String
    /// Whether logind's delay lock is held.
    public var lockHeld: Bool
    /// Whether logind answered when restored started.
    public var logind: Bool
    /// Whether restored is registered with the session manager.
    public var sessionManager: Bool
    /// Apps with a loaded plugin.
    public var apps: UInt32
    /// Plugins loaded.
    public var pluginsLoaded: UInt32
    /// Plugin files refused.
    public var pluginsRefused: UInt32
    /// Where the archives are.
    public var stateDirectory: String
    /// The last save, if any.
    @NullEncoded public var lastSave: LastSave?
    /// The desktop.
    public var desktop: Desktop
    /// What needs attention, most urgent first.
    public var problems: [String] = []

    /// The daemon's `Status` dictionary.
    init(daemonStatus fields: [String: DBusValue]) {
        state = fields["State"]?.stringValue ?? "unknown"
        version = fields["Version"]?.stringValue ?? ""
        lockHeld = fields["LockHeld"]?.boolValue ?? false
        logind = fields["Logind"]?.boolValue ?? false
        sessionManager = fields["SessionManager"]?.boolValue ?? false
        apps = UInt32(fields["Apps"]?.uint64Value ?? 0)
        pluginsLoaded = UInt32(fields["PluginsLoaded"]?.uint64Value ?? 0)
        pluginsRefused = UInt32(fields["PluginsRefused"]?.uint64Value ?? 0)
        stateDirectory = fields["StateDirectory"]?.stringValue ?? ""
        let nonEmpty = { (key: String) in fields[key]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } }
        desktop = Desktop(
            phase: fields["Desktop"]?.stringValue ?? "none",
            name: nonEmpty("DesktopName"),
            since: fields["DesktopSince"]?.int64Value.flatMap(Timestamps.date(microseconds:)),
            startedBy: nonEmpty("DesktopStartedBy"),
            endedBy: nonEmpty("DesktopEndedBy"),
            ended: fields["DesktopEnded"]?.int64Value.flatMap(Timestamps.date(microseconds:))
        )
        if let time = fields["LastSave"]?.int64Value.flatMap(Timestamps.date(microseconds:)) {
            lastSave = LastSave(
                time: time, trigger: fields["LastSaveTrigger"]?.stringValue ?? "",
                saved: UInt32(fields["LastSaveSaved"]?.uint64Value ?? 0), failed: UInt32(fields["LastSaveFailed"]?.uint64Value ?? 0)
            )
        }
    }

    /// The problem of a restored that loaded no plugin: nothing is saved or
    /// restored; where it looked, and how to add one.
    public static func noPlugin(lookedIn directories: [String]) -> String {
        let looked = directories.isEmpty ? "" : " (restored looked in \(directories.joined(separator: ", ")))"
        return "no plugin is loaded: no app is saved or restored\(looked); put an app's plugin (lib….so) in one of those "
            + "directories and run restored-ctl reload, or start restored with the plugin's directory in RESTORED_PLUGIN_PATH "
            + "(restored-ctl doctor says what each directory holds)"
    }

    /// Lists what needs attention, from the status and the apps and plugins
    /// (`pluginDirectories`: where restored looked, when it loaded none).
    mutating func findProblems(apps: [AppRecord], plugins: [PluginRecord], pluginDirectories: [String] = []) {
        var problems: [String] = []
        if pluginsLoaded == 0 {
            problems.append(Self.noPlugin(lookedIn: pluginDirectories))
        }
        if !logind {
            problems.append("logind was not reachable when restored started: nothing is saved before suspend or shutdown (restored-ctl doctor)")
        } else if !lockHeld && state != "saving" && state != "stopping" {
            problems.append("logind's delay lock is not held: suspend and shutdown will not wait for saves (see the journal: journalctl --user -u restored)")
        }
        for plugin in plugins where plugin.state == "refused" {
            problems.append(plugin.reason ?? "refused plugin \(plugin.file)")
        }
        for plugin in plugins where plugin.state == "quarantined" {
            problems.append("\(plugin.app ?? plugin.file): quarantined: \(plugin.reason ?? "its plugin host failed too often")")
        }
        for app in apps {
            if let last = app.last, last.isFailure {
                var line = "\(app.app): \(last.action) \(last.outcome)\(last.detail.isEmpty ? "" : ": \(last.detail)")"
                if last.known == .save(.partial) { line += " (left out: \(last.objects.map(\.path).joined(separator: ", ")); restored-ctl apps says why)" }
                problems.append(line)
            } else if let problem = app.problem {
                problems.append("\(app.app): \(problem)")
            } else if app.partial {
                let kept = app.lastComplete.map { "; the last complete one (generation \($0.generation)) is kept: restored-ctl restore --last-complete \(app.app)" } ?? ""
                problems.append("\(app.app): its archive is partial: its last save left objects out (restored-ctl show \(app.app))\(kept)")
            }
        }
        if let lastSave, lastSave.failed > 0 {
            problems.append("the last save (\(lastSave.trigger)) failed for \(lastSave.failed) app\(lastSave.failed == 1 ? "" : "s")")
        }
        self.problems = problems
    }
}
