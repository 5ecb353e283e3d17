import SystemPackage
/// What one tmux server shows at one moment: its sessions, their windows in
/// order, and each window's panes.
///
/// Read with one tmux client call (``read(from:version:)``): `list-sessions`,
/// `list-windows -a` and `list-panes -a`, each record tagged with its kind
/// and framed by ``TmuxRecordFormat`` so that every field reads back as tmux
/// holds it, on every release (3.4 and 3.5 escape what they print). A
/// record that does not have the fields expected is an error for this
/// server only, naming the record.
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

    /// The fields of a session record (`S`).
    static let sessionFields: [TmuxRecordFormat.Field] = [
        .text("version"), .text("session_name"), .number("session_grouped"), .text("session_group"), .text("session_path"),
    ]
    /// The fields of a window record (`W`).
    static let windowFields: [TmuxRecordFormat.Field] = [
        .text("session_name"), .number("window_index"), .text("window_name"), .number("automatic-rename"), .text("window_layout"),
        .number("window_zoomed_flag"), .number("window_active"), .number("window_last_flag"), .number("window_width"), .number("window_height"),
    ]
    /// The fields of a pane record (`P`).
    static let paneFields: [TmuxRecordFormat.Field] = [
        .text("session_name"), .number("window_index"), .number("pane_index"), .text("pane_current_path"), .text("pane_title"),
        .number("pane_active"), .number("pane_last"), .number("pane_pid"), .text("pane_current_command"),
    ]
    static let fieldCounts: [Character: Int] = ["S": sessionFields.count, "W": windowFields.count, "P": paneFields.count]

    /// The tmux commands of the one call that reads a server, in `format`.
    public static func readCommands(in format: TmuxRecordFormat) -> [[String]] {
        [
            ["list-sessions", "-F", format.template(kind: "S", fields: sessionFields)],
            ["list-windows", "-a", "-F", format.template(kind: "W", fields: windowFields)],
            ["list-panes", "-a", "-F", format.template(kind: "P", fields: paneFields)],
        ]
    }

    /// Reads the server `runner` talks to, asking its tmux's version first
    /// (`tmux -V`; a caller that reads often keeps the version and calls
    /// ``read(from:version:)``).
    public static func read(from runner: TmuxRunner) throws(TmuxError) -> TmuxSnapshot {
        try read(from: runner, version: try? runner.version())
    }

    /// Reads the server `runner` talks to, whose tmux is of `version` (nil:
    /// unknown, read as a current tmux).
    public static func read(from runner: TmuxRunner, version: TmuxVersion?) throws(TmuxError) -> TmuxSnapshot {
        let format = TmuxRecordFormat(for: version)
        return try parse(try runner.output(commands: readCommands(in: format)), format: format, server: runner.socket.string, version: version)
    }

    /// The snapshot `output` (of ``readCommands(in:)``) describes.
    static func parse(_ output: [UInt8], format: TmuxRecordFormat, server: String, version: TmuxVersion?) throws(TmuxError) -> TmuxSnapshot {
        let records: [[String]]
        do {
            records = try format.records(of: output, fieldCounts: fieldCounts)
        } catch {
            let release = version.map { "tmux \($0)" } ?? "this tmux"
            throw .unreadableOutput(socket: FilePath(server), detail: "\(error), which \(release) wrote in a way restored does not read: save it with a tmux restored knows (docs/tmux.md)")
        }
        var serverVersion = ""
        var sessions: [Session] = []
        var sessionIndex: [String: Int] = [:]
        var windowIndex: [String: [Int: Int]] = [:]
        for (recordNumber, fields) in records.enumerated() {
            func garbage(_ why: String) -> TmuxError {
                .unreadableOutput(socket: FilePath(server), detail: "record \(recordNumber + 1) that cannot be read (\(why)): \(fields.joined(separator: " | ").prefix(200))")
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
            case "S":
                serverVersion = fields[1]
                guard sessionIndex[fields[2]] == nil else { throw garbage("session \(fields[2]) twice") }
                sessionIndex[fields[2]] = sessions.count
                let grouped = try flag(fields[3])
                sessions.append(Session(name: fields[2], group: grouped ? fields[4] : nil, directory: fields[5], windows: []))
            case "W":
                guard let session = sessionIndex[fields[1]] else { throw garbage("a window of unknown session \(fields[1])") }
                let index = try number(fields[2])
                windowIndex[fields[1], default: [:]][index] = sessions[session].windows.count
                sessions[session].windows.append(Window(
                    index: index, name: fields[3], automaticRename: try flag(fields[4]), layout: fields[5],
                    zoomed: try flag(fields[6]), active: try flag(fields[7]), last: try flag(fields[8]),
                    width: try number(fields[9]), height: try number(fields[10]), panes: []
                ))
            case "P":
                guard let session = sessionIndex[fields[1]], let window = windowIndex[fields[1]]?[try number(fields[2])] else {
                    throw garbage("a pane of an unknown window \(fields[1]):\(fields[2])")
                }
                guard let pid = Int32(fields[8]), pid > 0 else { throw garbage("\"\(fields[8])\" is no pid") }
                sessions[session].windows[window].panes.append(Pane(
                    index: try number(fields[3]), directory: fields[4], title: fields[5], active: try flag(fields[6]),
                    last: try flag(fields[7]), pid: pid, currentCommand: fields[9]
                ))
            default:
                throw garbage("expected a session, window or pane record")
            }
        }
        return TmuxSnapshot(version: serverVersion, sessions: sessions)
    }
}
