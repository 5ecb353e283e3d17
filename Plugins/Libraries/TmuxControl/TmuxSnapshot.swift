import SystemPackage
/// What one tmux server shows at one moment: its sessions, their windows in
/// order, and each window's panes.
///
/// Read with one tmux client call (``read(from:)``): `list-sessions`,
/// `list-windows -a` and `list-panes -a`, each line tagged with its kind and
/// its fields separated by U+001F, which tmux passes through and names do
/// not hold. A line that does not have the fields expected is an error for
/// this server only.
public struct TmuxSnapshot: Hashable, Sendable {
    /// A session.
    public struct Session: Hashable, Sendable {
        /// Its name (unique on its server).
        public var name: String
        /// Its group's name when grouped (sessions of a group share windows).
        public var group: String?
        /// The directory new windows start in.
        public var directory: String
        /// Its windows, by index.
        public var windows: [Window]
    }

    /// A window.
    public struct Window: Hashable, Sendable {
        /// Its index in the session.
        public var index: Int
        /// Its name.
        public var name: String
        /// Whether tmux names it after its program (the name is then not kept).
        public var automaticRename: Bool
        /// The exact layout (`window_layout`), for `select-layout`.
        public var layout: String
        /// Whether its active pane is zoomed.
        public var zoomed: Bool
        /// Whether it is the session's current window.
        public var active: Bool
        /// Whether it is the session's last (previously current) window.
        public var last: Bool
        /// Its size in cells, which its layout is for.
        public var width: Int
        /// Its height in cells.
        public var height: Int
        /// Its panes, by index.
        public var panes: [Pane]
    }

    /// A pane.
    public struct Pane: Hashable, Sendable {
        /// Its index in the window.
        public var index: Int
        /// The working directory of its program.
        public var directory: String
        /// Its title.
        public var title: String
        /// Whether it is the window's current pane.
        public var active: Bool
        /// Whether it is the window's last (previously current) pane.
        public var last: Bool
        /// The pid of the process tmux started in it (the shell).
        public var pid: Int32
        /// What `pane_current_command` names (the foreground program's name).
        public var currentCommand: String
    }

    /// The server's tmux version (`3.3a`).
    public var version: String
    /// The sessions, by name.
    public var sessions: [Session]

    static let separator: Character = "\u{1F}"

    /// The tmux commands of the one call that reads a server.
    public static var readCommands: [[String]] {
        let s = String(separator)
        let sessions = ["S", "#{version}", "#{session_name}", "#{session_grouped}", "#{session_group}", "#{session_path}"]
        let windows = [
            "W", "#{session_name}", "#{window_index}", "#{window_name}", "#{automatic-rename}", "#{window_layout}",
            "#{window_zoomed_flag}", "#{window_active}", "#{window_last_flag}", "#{window_width}", "#{window_height}",
        ]
        let panes = [
            "P", "#{session_name}", "#{window_index}", "#{pane_index}", "#{pane_current_path}", "#{pane_title}",
            "#{pane_active}", "#{pane_last}", "#{pane_pid}", "#{pane_current_command}",
        ]
        return [
            ["list-sessions", "-F", sessions.joined(separator: s)],
            ["list-windows", "-a", "-F", windows.joined(separator: s)],
            ["list-panes", "-a", "-F", panes.joined(separator: s)],
        ]
    }

    /// Reads the server `runner` talks to.
    public static func read(from runner: TmuxRunner) throws(TmuxError) -> TmuxSnapshot {
        try parse(try runner.run(commands: readCommands), server: runner.socket.string)
    }

    /// The snapshot `output` (of ``readCommands``) describes.
    static func parse(_ output: String, server: String) throws(TmuxError) -> TmuxSnapshot {
        var version = ""
        var sessions: [Session] = []
        var sessionIndex: [String: Int] = [:]
        var windowIndex: [String: [Int: Int]] = [:]
        for (lineNumber, line) in output.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
            let fields = line.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
            func garbage(_ why: String) -> TmuxError {
                .unreadableOutput(socket: FilePath(server), detail: "line \(lineNumber + 1) that cannot be read (\(why)): \(line.prefix(200))")
            }
            func flag(_ field: String) throws(TmuxError) -> Bool {
                switch field {
                case "1", "on": return true
                case "0", "off", "": return false
                default: throw garbage("\"\(field)\" is no flag")
                }
            }
            func number(_ field: String) throws(TmuxError) -> Int {
                guard let value = Int(field), value >= 0 else { throw garbage("\"\(field)\" is no index") }
                return value
            }
            switch fields.first {
            case "S" where fields.count == 6:
                version = fields[1]
                guard sessionIndex[fields[2]] == nil else { throw garbage("session \(fields[2]) twice") }
                sessionIndex[fields[2]] = sessions.count
                let grouped = try flag(fields[3])
                sessions.append(Session(name: fields[2], group: grouped ? fields[4] : nil, directory: fields[5], windows: []))
            case "W" where fields.count == 11:
                guard let session = sessionIndex[fields[1]] else { throw garbage("a window of unknown session \(fields[1])") }
                let index = try number(fields[2])
                windowIndex[fields[1], default: [:]][index] = sessions[session].windows.count
                sessions[session].windows.append(Window(
                    index: index, name: fields[3], automaticRename: try flag(fields[4]), layout: fields[5],
                    zoomed: try flag(fields[6]), active: try flag(fields[7]), last: try flag(fields[8]),
                    width: try number(fields[9]), height: try number(fields[10]), panes: []
                ))
            case "P" where fields.count == 10:
                guard let session = sessionIndex[fields[1]], let window = windowIndex[fields[1]]?[try number(fields[2])] else {
                    throw garbage("a pane of an unknown window \(fields[1]):\(fields[2])")
                }
                guard let pid = Int32(fields[8]), pid > 0 else { throw garbage("\"\(fields[8])\" is no pid") }
                sessions[session].windows[window].panes.append(Pane(
                    index: try number(fields[3]), directory: fields[4], title: fields[5], active: try flag(fields[6]),
                    last: try flag(fields[7]), pid: pid, currentCommand: fields[9]
                ))
            default:
                throw garbage("expected a session, window or pane line")
            }
        }
        return TmuxSnapshot(version: version, sessions: sessions)
    }
}
