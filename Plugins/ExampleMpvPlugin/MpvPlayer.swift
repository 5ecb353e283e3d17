import FoundationEssentials
import PluginToolkit
import SystemPackage

/// One running mpv that can be asked: its process and its IPC socket
/// (`--input-ipc-server=PATH`), and what it answers over that socket.
struct MpvPlayer {
    /// What a player plays and how: all a restore needs to start it again.
    struct State: Equatable {
        /// The file, as an absolute path.
        var path: String
        /// Seconds into it.
        var position: Double
        var paused: Bool
        /// Percent, 100 being the file's own.
        var volume: Double
        var speed: Double
    }

    var process: UserProcess
    var socket: FilePath

    /// The user's mpv processes that listen on an IPC socket, oldest first.
    static func running() -> [MpvPlayer] {
        UserProcess.running("mpv").compactMap { process in
            socket(in: process.commandLine, directory: process.directory).map { MpvPlayer(process: process, socket: $0) }
        }
    }

    /// The IPC socket a command line names, made absolute against the
    /// process's directory; nil when it names none.
    static func socket(in commandLine: [String], directory: FilePath?) -> FilePath? {
        let option = "--input-ipc-server"
        var named: String?
        for (index, argument) in commandLine.enumerated().dropFirst() {
            if argument == "--" { break }
            if argument.hasPrefix(option + "=") {
                named = String(argument.dropFirst(option.count + 1))
            } else if argument == option, index + 1 < commandLine.count {
                named = commandLine[index + 1]
            }
        }
        guard let named, !named.isEmpty else { return nil }
        let path = FilePath(named)
        return path.isAbsolute ? path : (directory ?? FilePath("/")).pushing(path)
    }

    /// What a player says when asked.
    enum Answer: Equatable {
        /// It plays (or holds, paused) this.
        case playing(State)
        /// It answers and plays nothing (`--idle`, its file closed).
        case idle
        /// It does not answer in time: stopped, busy, hung.
        case silent
    }

    /// Asks the player what it plays, each answer before `deadline`. A
    /// player that has just started may not listen yet, or not have opened
    /// its file: it gets until `deadline` to, as it gets to answer; one
    /// still opening its file then is as one that does not answer.
    func state(before deadline: ContinuousClock.Instant) -> Answer {
        guard Waiting.forSocket(socket, until: deadline), let client = try? SocketRequestClient(connectingTo: socket) else { return .silent }
        var nextRequest = 1
        /// The answer's `data`, `.some(nil)` for an answer without (an
        /// unavailable property), nil for no answer.
        func property(_ name: String) -> Value?? {
            let id = nextRequest
            nextRequest += 1
            let request = #"{"command":["get_property","\#(name)"],"request_id":\#(id)}"#
            // mpv sends events between answers: the answer carries our id.
            guard let line = try? client.request(request, before: deadline, answeredBy: { Self.requestID(of: $0) == id }),
                  let answer = Self.reply(line) else { return nil }
            return .some(answer.error == "success" ? answer.data : nil)
        }
        // No file now: an idle player (`--idle`, its file closed) says so
        // (`idle-active`); one still opening the file it was started with
        // does not yet, and is asked again until `deadline`.
        var file: Value?? = nil
        var opening = false
        _ = Waiting.until(deadline) {
            file = property("path")
            guard case .some(.none) = file else { return true }
            guard case .some(.some(.flag(false))) = property("idle-active") else {
                opening = false
                return true
            }
            opening = true
            return false
        }
        guard let file else { return .silent }
        guard case .text(let name)? = file else { return opening ? .silent : .idle }
        guard let positionAnswer = property("time-pos"), let pauseAnswer = property("pause") else { return .silent }
        // A file still opening has no position yet: the start of it.
        let position = positionAnswer?.number ?? 0
        let paused = pauseAnswer?.flag ?? false
        let volume = property("volume")??.number ?? 100
        let speed = property("speed")??.number ?? 1
        // A relative file is relative to the player's directory.
        let path = name.hasPrefix("/") ? name : (process.directory ?? FilePath("/")).pushing(FilePath(name)).string
        return .playing(State(path: path, position: position, paused: paused, volume: volume, speed: speed))
    }

    /// Whether a player answers on `socket` now (a restore leaves a player
    /// that is there alone).
    static func answers(on socket: FilePath, before deadline: ContinuousClock.Instant) -> Bool {
        guard let client = try? SocketRequestClient(connectingTo: socket) else { return false }
        let line = try? client.request(#"{"command":["get_property","pid"],"request_id":1}"#, before: deadline) { requestID(of: $0) == 1 }
        return line != nil
    }

    /// One line of mpv's JSON IPC: an answer (its request's id, its error,
    /// `success` when there is none, and its data) or an event (no id).
    private struct Reply: Decodable {
        var requestID: Int?
        var error: String?
        var data: Value?

        enum CodingKeys: String, CodingKey {
            case requestID = "request_id", error, data
        }
    }

    /// The data of an answer, of the kinds this plugin reads.
    enum Value: Decodable {
        case text(String)
        case number(Double)
        case flag(Bool)
        /// A list, a map: nothing this plugin asks for.
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                self = .flag(flag)
            } else if let number = try? container.decode(Double.self) {
                self = .number(number)
            } else if let text = try? container.decode(String.self) {
                self = .text(text)
            } else {
                self = .other
            }
        }

        var number: Double? { if case .number(let number) = self { number } else { nil } }
        var flag: Bool? { if case .flag(let flag) = self { flag } else { nil } }
    }

    private static func reply(_ line: String) -> Reply? {
        try? JSONDecoder().decode(Reply.self, from: Data(line.utf8))
    }

    private static func requestID(of line: String) -> Int? {
        reply(line)?.requestID
    }
}
