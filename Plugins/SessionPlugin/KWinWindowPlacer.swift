import FoundationEssentials
import Glibc
@_spi(Restored) import PluginToolkit
import ProcFiles
import RestoredDBus
import SavedText
import Synchronization
import SystemSupport

/// Window places on KWin (Plasma), through restored's KWin script
/// (`Extensions/kwin/places.js`, installed under
/// `PREFIX/share/restored/kwin/` and found through `XDG_DATA_DIRS`): KWin lets
/// no client read or move other clients' windows under Wayland, and a
/// script it runs can.
///
/// A KWin script serves no D-Bus calls, so the placer serves it: while it
/// reads or places, it owns `org.restored1.KWinPlaces` on the session bus,
/// loads the script (`org.kde.KWin /Scripting loadScript`), runs it, and
/// answers its calls, from KWin's connection alone (KWin's scripting is
/// open to every client of the user's session bus: this keeps other
/// clients out, not another script of the user's): `Report` (the windows
/// there, as JSON), `Claim` (a new window's process; the answer is its
/// saved place, as JSON, when its process was launched from a relaunched
/// entry), `Applied`. It unloads the script and gives the name up after.
/// Nothing saved is put into the script's source.
///
/// Saved: each window's desktop (by index), output (by name on Plasma 6;
/// 5.27 gives scripts none), frame, fullscreen and minimized. A frame on no
/// screen at the restore (its monitor gone) goes inside the first screen.
final class KWinWindowPlacer: WindowPlacer, Sendable {
    /// The name the placer owns while the script runs.
    static let busName = "org.restored1.KWinPlaces"
    /// The object the script calls.
    static let objectPath = "/org/restored1/KWinPlaces"
    /// Its interface.
    static let interface = "org.restored1.KWinPlaces"
    /// The name the script is loaded under.
    static let scriptName = "restored-places"
    /// Where the script is, below each `XDG_DATA_DIRS` entry.
    static let scriptPath = "restored/kwin/places.js"

    /// What the script has told, and the rules it may claim.
    private struct State {
        var running = false
        var reported: [PlacedWindow]?
        var rules: [Rule] = []
        var groupOfProcess: [Int32: Int] = [:]
        var applied: Set<String> = []
    }

    /// One saved window's place, for a window of launch `launch`.
    private struct Rule {
        var id: String
        var launch: Int
        var entryPath: String
        var place: SavedWindow
        var claimed = false
    }

    private let bus: DBusClient
    private let script: String
    private let kwin: String
    private let state = Mutex(State())

    /// A placer when KWin's scripting answers on the session bus and the
    /// script is installed; nil otherwise.
    init?(environment: [String: String]) {
        guard let script = Self.installedScript(environment: environment) else { return nil }
        let deadline = ContinuousClock.now + .seconds(3)
        guard let bus = try? DBusClient.connect(until: deadline),
              let kwin = try? bus.owner(of: "org.kde.KWin", until: deadline),
              (try? bus.call("isScriptLoaded", of: "org.kde.kwin.Scripting", at: "/Scripting", on: "org.kde.KWin", arguments: [.string(Self.scriptName)], until: deadline)) != nil
        else { return nil }
        self.bus = bus
        self.script = script
        self.kwin = kwin
    }

    /// Closing the connection gives the name up; a script still loaded
    /// finds no one to call, and the next start unloads it. Nothing here
    /// waits: the last reference may go on a thread of the task pool.
    deinit {
        bus.close()
    }

    /// The installed script in `XDG_DATA_HOME` or an `XDG_DATA_DIRS` entry.
    static func installedScript(environment: [String: String]) -> String? {
        let directories = XDGBaseDirectories(environment: environment)
        return ([directories.dataHome] + directories.dataDirectories).map { $0 + "/" + scriptPath }.first { access($0, R_OK) == 0 }
    }

    // MARK: The script

    /// Owns the name, serves the object, and loads and runs the script.
    private func start() -> Bool {
        state.withLock { $0.running = true }
        bus.connection.export(path: Self.objectPath, interfaces: [serviceInterface()])
        let deadline = ContinuousClock.now + .seconds(5)
        guard (try? bus.requestName(Self.busName, until: deadline)) != nil else { return false }
        _ = try? bus.call("unloadScript", of: "org.kde.kwin.Scripting", at: "/Scripting", on: "org.kde.KWin", arguments: [.string(Self.scriptName)], until: deadline)
        let reply = try? bus.call(
            "loadScript", of: "org.kde.kwin.Scripting", at: "/Scripting", on: "org.kde.KWin", arguments: [.string(script), .string(Self.scriptName)],
            until: min(deadline, .now + .seconds(3))
        )
        guard let id = reply?.first?.int64Value, id >= 0 else { return false }
        // 5.27 serves a loaded script at /ID, later versions at /Scripting/ScriptID.
        for path in ["/Scripting/Script\(id)", "/\(id)"] {
            if (try? bus.call("run", of: "org.kde.kwin.Script", at: path, on: "org.kde.KWin", until: min(deadline, .now + .seconds(3)))) != nil {
                return true
            }
        }
        return false
    }

    /// Unloads the script and gives the name up, once.
    private func stop() {
        guard state.withLock({ state in defer { state.running = false }; return state.running }) else { return }
        _ = try? bus.call(
            "unloadScript", of: "org.kde.kwin.Scripting", at: "/Scripting", on: "org.kde.KWin", arguments: [.string(Self.scriptName)], until: .now + .seconds(3)
        )
        // Its own time: a KWin that used all of the unload's still gets the name back.
        try? bus.releaseName(Self.busName, until: .now + .seconds(1))
        bus.connection.unexport(path: Self.objectPath)
    }

    /// What the script calls; a caller other than KWin is refused.
    private func serviceInterface() -> DBusInterface {
        let kwin = kwin
        let check = { @Sendable (call: DBusMethodCall) throws(DBusError) in
            guard call.sender == kwin else { throw DBusError(name: "org.freedesktop.DBus.Error.AccessDenied", message: "only KWin's script may call this") }
        }
        return DBusInterface(Self.interface, methods: [
            .init("Report", inputs: [.init("windows", "s")]) { [weak self] call in
                try check(call)
                let windows = Self.windows(fromJSON: try call.string(at: 0))
                self?.state.withLock { $0.reported = windows }
                return []
            },
            .init("Claim", inputs: [.init("window", "s")], outputs: [.init("place", "s")]) { [weak self] call in
                try check(call)
                return [.string(self?.claim(try call.string(at: 0)) ?? "{}")]
            },
            .init("Applied", inputs: [.init("outcome", "s")]) { [weak self] call in
                try check(call)
                if let outcome = try? JSONDecoder().decode(Outcome.self, from: Data(try call.string(at: 0).utf8)) {
                    _ = self?.state.withLock { $0.applied.insert(outcome.rule) }
                }
                return []
            },
        ])
    }

    /// The place for the window `json` names (`pid`): the next unclaimed
    /// rule of the launch its process holds, or of the first launch of its
    /// desktop file that no process holds yet; `{}` when none is its.
    private func claim(_ json: String) -> String {
        guard let window = try? JSONDecoder().decode(NewWindow.self, from: Data(json.utf8)), window.pid > 0 else { return "{}" }
        let pid = window.pid
        let launched = ProcProcess.environment(of: pid, prefix: "GIO_LAUNCHED_DESKTOP_FILE=")["GIO_LAUNCHED_DESKTOP_FILE"]
        let rule = state.withLock { state -> Rule? in
            var launch = state.groupOfProcess[pid]
            if launch == nil {
                let held = Set(state.groupOfProcess.values)
                launch = state.rules.first { $0.entryPath == launched && !$0.claimed && !held.contains($0.launch) }?.launch
                if let launch { state.groupOfProcess[pid] = launch }
            }
            guard let launch, let index = state.rules.firstIndex(where: { $0.launch == launch && !$0.claimed }) else { return nil }
            state.rules[index].claimed = true
            return state.rules[index]
        }
        guard let rule else { return "{}" }
        let place = rule.place
        let answer = Place(
            rule: rule.id, desktop: place.desktop, x: place.x, y: place.y, width: place.width, height: place.height,
            maximized: place.maximized, fullscreen: place.fullscreen, minimized: place.minimized
        )
        guard let data = try? JSONEncoder().encode(answer) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: WindowPlacer

    func windows() -> [PlacedWindow]? {
        state.withLock { $0.reported = nil }
        guard start() else {
            stop()
            return nil
        }
        defer { stop() }
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline {
            if let reported = state.withLock({ $0.reported }) { return reported }
            usleep(20_000)
        }
        return nil
    }

    /// Keeps the places as rules and starts the script, which claims them
    /// as the launches' windows appear.
    func prepare(_ launches: [(entryPath: String, places: [SavedWindow])]) {
        let rules = launches.enumerated().flatMap { launch, entry in
            entry.places.enumerated().map { index, place in Rule(id: "\(launch).\(index)", launch: launch, entryPath: entry.entryPath, place: place) }
        }
        guard !rules.isEmpty else { return }
        state.withLock { $0 = State(running: $0.running, rules: rules) }
        if !start() { stop() }
    }

    /// Waits until the script has applied as many places as `launches`
    /// have (the launches that started), or `deadline`; then stops it.
    func place(_ launches: [(entryPath: String, places: [SavedWindow])], before: Set<UInt64>, deadline: ContinuousClock.Instant) -> Int {
        defer { stop() }
        let expected = launches.reduce(0) { $0 + $1.places.count }
        while state.withLock({ $0.applied.count }) < expected, ContinuousClock.now < deadline {
            usleep(100_000)
        }
        return state.withLock { $0.applied.count }
    }

    // MARK: JSON

    /// A window as the script reports it.
    private struct ReportedWindow: Decodable {
        var pid: Int32?
        var desktop: Int?
        var output: String?
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var maximized: Bool?
        var fullscreen: Bool?
        var minimized: Bool?
    }

    /// A new window the script asks a place for.
    private struct NewWindow: Decodable {
        var pid: Int32
    }

    /// The place the script is to give a new window.
    private struct Place: Encodable {
        var rule: String
        var desktop: Int?
        var x: Int
        var y: Int
        var width: Int
        var height: Int
        var maximized: Bool
        var fullscreen: Bool
        var minimized: Bool
    }

    /// A place the script applied.
    private struct Outcome: Decodable {
        var rule: String
    }

    /// The windows of the script's report; none when it does not read.
    static func windows(fromJSON json: String) -> [PlacedWindow] {
        guard let list = try? JSONDecoder().decode([ReportedWindow].self, from: Data(json.utf8)) else { return [] }
        return list.enumerated().map { index, window in
            PlacedWindow(
                id: UInt64(index), pid: window.pid.flatMap { $0 > 0 ? $0 : nil },
                place: SavedWindow(
                    desktop: window.desktop.flatMap { $0 >= 0 ? $0 : nil },
                    output: window.output.flatMap { $0.isEmpty || !SavedText.isPrintable($0) ? nil : $0 },
                    fullscreen: window.fullscreen ?? false, maximized: window.maximized ?? false, minimized: window.minimized ?? false,
                    x: window.x, y: window.y, width: window.width, height: window.height
                )
            )
        }
    }
}
