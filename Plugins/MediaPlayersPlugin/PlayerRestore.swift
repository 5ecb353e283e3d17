import AppLaunching
import DesktopEntries
import FoundationEssentials
import Glibc
import MediaPlayers
import PluginToolkit
import ProcFiles
import RestorationKit
import SavedText

/// One restore of the saved players: each waits for a player of its entry
/// to appear on the bus (started by the session plugin, or here when it is
/// not loaded), then is handed its track, position and state.
struct PlayerRestore {
    let context: PluginContext
    let entries: DesktopEntryIndex
    /// Whether this plugin starts the players (no session plugin loaded).
    let startsPlayers: Bool
    let launcher: AppLauncher
    /// Where an entry's program is looked for.
    let searchPath: String

    /// How long the other players of an entry are waited for once its first
    /// is there: a single-instance player that held two items shows one.
    static let moreInstancesBudget = Duration.seconds(5)
    /// How long a player may take to open what it is handed.
    static let openBudget = Duration.seconds(10)
    /// How near the saved position a player must be once placed (a
    /// playing one moves on while it is read back).
    static let positionTolerance: Int64 = 1_500_000
    /// Each call's own bound.
    static let callBudget = Duration.seconds(2)

    /// A saved player and its order among its entry's players.
    struct Wanted {
        var copy: Int
        var saved: SavedMediaPlayer
        var entry: DesktopEntry
    }

    func run(_ objects: [PlayerObject], until deadline: ContinuousClock.Instant) {
        // The archive is untrusted: each player again through the save's rules.
        var wanted: [String: [Wanted]] = [:]
        for object in objects.sorted(by: { ($0.desktopID, $0.copy) < ($1.desktopID, $1.copy) }) {
            guard let saved = object.saved else { continue }
            let entry = entries[saved.desktopID]
            if let reason = MediaPlayerPolicy.reasonNotRestored(entry) {
                context.log("not restored: \(saved.desktopID)#\(object.copy): \(reason)", level: .warning)
                continue
            }
            guard let entry, DesktopAppLauncher.mayOpen(saved.url, with: entry) else {
                context.log("not restored: \(saved.desktopID)#\(object.copy): what it played is no file or document URL restored reopens", level: .warning)
                continue
            }
            wanted[saved.desktopID, default: []].append(Wanted(copy: object.copy, saved: saved, entry: entry))
        }
        guard !wanted.isEmpty else { return }
        let bus: DBusClient
        do {
            bus = try DBusClient.connect(until: deadline)
        } catch {
            context.log("no player restored: the session bus did not answer (\(error))", level: .warning)
            return
        }
        defer { bus.close() }
        if startsPlayers {
            start(wanted, on: bus, until: deadline)
        }
        // Owners handed a track, and owners that failed to answer or that
        // claim another entry: neither is asked again.
        var used = Set<String>()
        var rejected = Set<String>()
        var firstSeen: [String: ContinuousClock.Instant] = [:]
        while !wanted.isEmpty, ContinuousClock.now < deadline {
            let running = (try? MediaPlayer.all(on: bus, until: min(deadline, .now + Self.callBudget))) ?? []
            for (desktopID, pending) in wanted.sorted(by: { $0.key < $1.key }) {
                let entry = pending[0].entry
                let instances = running.filter {
                    $0.name.notAppReason == nil && !used.contains($0.owner) && !rejected.contains($0.owner)
                        && MediaPlayerPolicy.process($0.pid, runs: entry, searchPath: searchPath)
                }
                .sorted { (ProcProcess.startTime(of: $0.pid), $0.pid) < (ProcProcess.startTime(of: $1.pid), $1.pid) }
                var left = pending
                for player in instances {
                    guard !left.isEmpty else { break }
                    guard let state = try? player.state(on: bus, until: min(deadline, .now + Self.callBudget)),
                          state.desktopEntry.flatMap(MediaPlayerPolicy.desktopID(claimed:)) == desktopID
                    else {
                        rejected.insert(player.owner)
                        continue
                    }
                    used.insert(player.owner)
                    let one = left.removeFirst()
                    restore(one, into: player, state: state, on: bus, until: deadline)
                    // The others of this entry get their time from the end of this one's restore.
                    if firstSeen[desktopID] == nil { firstSeen[desktopID] = .now }
                }
                if left.isEmpty {
                    wanted[desktopID] = nil
                } else if let first = firstSeen[desktopID], first.duration(to: .now) > Self.moreInstancesBudget {
                    context.log("\(desktopID): \(left.count) of its saved players did not come back: it shows \(pending.count - left.count) (a player that opens one window holds one of them)", level: .notice)
                    wanted[desktopID] = nil
                } else {
                    wanted[desktopID] = left
                }
            }
            if !wanted.isEmpty { usleep(200_000) }
        }
        for (desktopID, left) in wanted {
            context.log("not restored: \(left.count) player(s) of \(desktopID): none appeared on the bus before the restore's deadline\(startsPlayers ? "" : " (the session plugin starts them: see its log)")", level: .warning)
        }
    }

    /// Starts the players missing for `wanted` from their entries, with no
    /// file: each is handed its track once it is there.
    private func start(_ wanted: [String: [Wanted]], on bus: DBusClient, until deadline: ContinuousClock.Instant) {
        let running = (try? MediaPlayer.all(on: bus, until: min(deadline, .now + Self.callBudget))) ?? []
        for (desktopID, pending) in wanted {
            let entry = pending[0].entry
            let there = running.filter { $0.name.notAppReason == nil && MediaPlayerPolicy.process($0.pid, runs: entry, searchPath: searchPath) }.count
            guard let exec = entry.exec, pending.count > there else { continue }
            for _ in there ..< pending.count {
                do {
                    _ = try launcher.launch(exec.expanded(files: [], entry: entry), named: entry.name, until: deadline)
                } catch {
                    context.log("not restored: \(desktopID): \(SavedText.printable("\(error)"))", level: .warning)
                }
            }
        }
    }

    /// Hands `wanted` to `player`: the track (paused first where it is to
    /// stay paused, so that a player that keeps its pause while it opens a
    /// track starts silent, and paused again at once where it starts what
    /// it opens), the position, then playing or paused.
    private func restore(_ wanted: Wanted, into player: MediaPlayer, state: MediaPlayerState, on bus: DBusClient, until deadline: ContinuousClock.Instant) {
        let saved = wanted.saved
        let what = "\(saved.desktopID)#\(wanted.copy) (\(player.name.busName))"
        guard state.canControl else {
            context.log("not restored: \(what): the player may not be controlled (CanControl is false)", level: .warning)
            return
        }
        // What the player says it plays, and what it is handed: a URL, a
        // path as a file URL.
        let uri = saved.url.hasPrefix("/") ? URL(fileURLWithPath: saved.url).absoluteString : saved.url
        let scheme = String(uri.prefix { $0 != ":" }).lowercased()
        // Local files are what every player plays, and some leave `file`
        // out of their list (mpv-mpris); another scheme must be listed.
        guard scheme == "file" || state.supportedSchemes.isEmpty || state.supportedSchemes.contains(where: { $0.lowercased() == scheme }) else {
            context.log("not restored: \(what): it opens no \(scheme) URL (SupportedUriSchemes)", level: .warning)
            return
        }
        func call(_ member: String, _ arguments: [DBusValue] = []) -> Bool {
            do {
                _ = try bus.call(member, of: MediaPlayer.playerInterface, at: MediaPlayer.objectPath, on: player.owner, arguments: arguments, until: min(deadline, .now + Self.callBudget))
                return true
            } catch {
                context.log("\(what): \(member) failed: \(SavedText.printable(error.name))", level: .notice)
                return false
            }
        }
        func current() -> MediaPlayerState? { try? player.state(on: bus, until: min(deadline, .now + Self.callBudget)) }
        func waitFor(_ budget: Duration, _ done: (MediaPlayerState) -> Bool) -> MediaPlayerState? {
            let end = min(deadline, .now + budget)
            while true {
                if let state = current(), done(state) { return state }
                if ContinuousClock.now >= end { return current() }
                usleep(100_000)
            }
        }
        /// Silent again where it is to be: on every way out.
        func settle() { if !saved.playing { _ = call("Pause") } }
        if !saved.playing { _ = call("Pause") }
        var now = state
        if state.url != uri {
            guard call("OpenUri", [.string(uri)]) else { return settle() }
            guard let opened = waitFor(Self.openBudget, { $0.url == uri && $0.trackID != nil }), opened.url == uri else {
                context.log("not restored: \(what): it did not open \(saved.url) in \(Self.openBudget)", level: .warning)
                return settle()
            }
            now = opened
            // A player that starts what it opens (Audacious): paused at once.
            if !saved.playing, now.status == .playing { _ = call("Pause") }
        }
        // A stopped player seeks nowhere: it plays first, and is paused at
        // once where it is to stay paused.
        if now.status == .stopped, saved.playing || saved.position > 0 {
            _ = call("Play")
            now = waitFor(.seconds(5), { $0.status != .stopped && $0.trackID != nil }) ?? now
            settle()
        }
        // A player may drop a seek that comes while it still opens the
        // track: the position is read back and the seek sent again, by
        // SetPosition (which names the track) or, where the player does
        // not take it, by Seek. Never past the track's end (which MPRIS
        // makes a skip to the next track).
        let target = now.length.map { saved.position < $0 ? saved.position : 0 } ?? saved.position
        var placed = target == 0
        let seekEnd = min(deadline, .now + Self.openBudget)
        while !placed, now.canSeek, ContinuousClock.now < seekEnd {
            if let track = now.trackID, call("SetPosition", [.objectPath(track), .int64(target)]) {
            } else if let position = now.position {
                _ = call("Seek", [.int64(target - position)])
            }
            usleep(250_000)
            guard let after = current() else { break }
            now = after
            placed = now.position.map { abs($0 - target) < Self.positionTolerance } ?? false
        }
        _ = call(saved.playing ? "Play" : "Pause")
        let seconds = (Double(target) / 100_000).rounded() / 10
        if placed {
            context.log("restored \(what): \(saved.url) at \(seconds) s, \(saved.playing ? "playing" : "paused")")
        } else {
            context.log("restored \(what): \(saved.url), \(saved.playing ? "playing" : "paused"), but not at \(seconds) s: its position could not be set (it is at \((Double(now.position ?? 0) / 100_000).rounded() / 10) s)", level: .notice)
        }
    }
}
