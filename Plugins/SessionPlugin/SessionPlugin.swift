import AppDiscovery
import AppLaunching
import DesktopEntries
import FoundationEssentials
import MediaPlayers
import NeovimControl
import PluginSupport
import PluginToolkit
import ProcFiles
import RestorationKit
import RestoredDBus
import SavedText
import SystemPackage
import SystemSupport
import TerminalPrograms
import UnitLaunching

/// The plugin's entry point: the C ABI's `restored_plugin_v1`.
@_cdecl("restored_plugin_v1")
public func restoredPluginV1() -> UnsafeRawPointer {
    PluginExport.descriptor(for: SessionPlugin.self)
}

/// The restoration class of "the apps of this session": every app the
/// user had open, found with no help from the apps (``RunningAppScanner``),
/// reopened at login from its desktop entry (``DesktopAppLauncher``).
///
/// The tree: a ``DesktopAppObject`` per desktop id, with an
/// ``AppInstanceObject`` per running instance; and `left-out`, which lists
/// the apps not saved with the reason (``SessionExclusions``).
///
/// Options (`[org.restored.Session]` in restored.conf, or `--option`):
/// `exclude` (desktop ids never saved nor reopened), `launch-interval`
/// (milliseconds between two launches at restore, default 200; fewer when
/// the launches would take more than ``launchBudget`` together),
/// `programs` (what a terminal window may run again: the tmux plugin's
/// allow-list and option).
final class SessionPlugin: RestorationPlugin {
    static let appID = "org.restored.Session"
    /// The media players' plugin: loaded, it hands players their tracks.
    static let mediaPlayersAppID = "org.restored.MediaPlayers"
    static let appVersion = "1"
    static let displayName = "Session apps"
    static var restorationClasses: [any RestorationClass.Type] { [DesktopAppObject.self, AppInstanceObject.self] }
    /// Windows need the desktop: restored restores this plugin once the
    /// graphical session is up.
    static var traits: PluginTraits { [.needsGraphicalSession] }

    let context: PluginContext
    let environment: [String: String]
    let exclusions: SessionExclusions
    let launchInterval: Duration
    /// The programs a terminal window may show again (option `programs`, as the tmux plugin's).
    let policy: ProgramPolicy
    /// The desktop entries, read again only when their directories changed:
    /// a save before suspend must not read hundreds of files each time.
    private(set) var entries = DesktopEntryIndex(directories: [])
    private var entriesRead = false

    /// Reads the desktop entries again when they changed since the last read.
    private func refreshEntries() {
        guard !entriesRead || !entries.isCurrent else { return }
        entries = DesktopEntryIndex(environment: environment)
        entriesRead = true
    }
    private var roots: [any RestorableObject] = []
    /// How many instances of each app the last save of this plugin host
    /// kept, or, before its first save, the last restore found in the archive.
    private var savedCounts: [String: Int] = [:]

    init(context: PluginContext) throws {
        self.context = context
        environment = ProcessInfo.processInfo.environment
        exclusions = SessionExclusions(options: context.options, environment: environment)
        let milliseconds = context.options["launch-interval"].flatMap(Int.init).map { max(0, min($0, 10_000)) } ?? 200
        launchInterval = .milliseconds(milliseconds)
        policy = ProgramPolicy(option: context.options["programs"])
    }

    /// How long one save may spend asking the Neovims of terminal windows,
    /// all of them together (each at most a second).
    static let editorReadBudget: Duration = .seconds(2)
    /// When this save stops asking Neovims.
    private var editorReadDeadline = ContinuousClock.now
    /// The GNOME Terminal servers whose windows' tabs could not be told, with why, as said in the log.
    private var untoldTerminals: Set<String> = []

    /// The windows of the terminal `pid`, each with its program as the
    /// allow-list keeps it, and a Neovim's state within ``editorReadBudget``;
    /// GNOME Terminal's tabs grouped by its `windows` where they can be
    /// told apart (``GnomeTerminalTabs``, asked on `sessionBus`, GNOME
    /// Shell placer's connection).
    func terminalShells(of pid: Int32, windows: [PlacedWindow], sessionBus: DBusClient?) -> TerminalShells {
        let program = ProcProcess.executable(of: pid).map(ProgramName.of)
        // kitty's own layout, when it answers: its windows are those shells.
        if program == "kitty",
           let kitty = KittyLayout.read(kittyPID: pid, policy: policy, readEditor: readEditor(of:)) {
            var shells = TerminalShells(of: pid, policy: policy)
            shells.shells = kitty.windows
            shells.pids = []
            shells.kitty = kitty
            return shells
        }
        var shells = TerminalShells(of: pid, policy: policy, readEditor: readEditor(of:))
        if program == "gnome-terminal-server", windows.count > 1, let sessionBus {
            do {
                let grouped = try GnomeTerminalTabs.group(
                    shells, server: pid, on: sessionBus, windows: windows, countAtEnd: context.saveOccasion?.endsSession == true
                )
                shells.shells = grouped.shells
                shells.windowTabs = grouped.counts
                if grouped.toldByTitles, untoldTerminals.insert("\(pid) order").inserted {
                    context.log("GNOME Terminal \(pid): the order GNOME Shell says its windows were used in is not its own; their titles tell which tabs each holds", level: .info)
                }
            } catch {
                // Said once per server and reason: an autosave every minute repeats it.
                let said = "\(pid) \(error)"
                if untoldTerminals.insert(said).inserted {
                    context.log("GNOME Terminal \(pid): which tab is in which of its \(windows.count) windows is not told now (\(error)); its tabs are saved as one window's until it is", level: .info)
                }
            }
        }
        return shells
    }

    /// The state of `program` when it is a Neovim, within ``editorReadBudget``.
    private func readEditor(of program: ForegroundProgram) -> NeovimSession? {
        guard NeovimServer.isNeovim(pid: program.pid) else { return nil }
        let left = ContinuousClock.now.duration(to: editorReadDeadline)
        guard left > .milliseconds(10) else {
            context.log("nvim \(program.pid): this save has spent its \(Self.editorReadBudget) on Neovims; only its command is saved", level: .notice)
            return nil
        }
        let sockets = NeovimServer.sockets(ofProcess: program.pid)
        do {
            return try NeovimSession.read(fromServerAt: sockets, before: ContinuousClock.now + min(.seconds(1), left))
        } catch {
            context.log("nvim \(program.pid): \(error); only its command is saved", level: .notice)
            return nil
        }
    }

    var rootObjects: [any RestorableObject] { roots }

    /// Whether `pid` runs below one of `ancestors`, within a terminal
    /// window's depth (the terminal, a one-use script, the program).
    static func runs(_ pid: Int32, below ancestors: Set<Int32>) -> Bool {
        var current = pid
        for _ in 0 ..< 4 {
            guard let fields = ProcProcess.statFields(of: current), fields.count > 1, let parent = Int32(fields[1]), parent > 1 else { return false }
            if ancestors.contains(parent) { return true }
            current = parent
        }
        return false
    }

    // MARK: Saving

    /// Finds the running apps and decides whether they may replace the last
    /// archive: at the end of the session (the save's occasion), a save that
    /// finds fewer instances of an app than the last one is apps being
    /// killed around it, so it keeps the last archive ("keep what you
    /// have"); apps gone in a session that goes on were closed by the user.
    func saveDecision(coder: StateCoder) throws -> SaveDecision {
        refreshEntries()
        let running = RunningAppScanner().scan(entries)
        var kept: [String: [RunningApp]] = [:]
        var excluded: [(app: RunningApp, reason: SessionExclusions.Reason)] = []
        for app in running {
            if let reason = exclusions.reason(for: app.desktopID, entry: entries[app.desktopID]) {
                excluded.append((app, reason))
            } else {
                kept[app.desktopID, default: []].append(app)
            }
        }
        // A program that runs in a window of a terminal kept here (`foot
        // nvim FILE`, a Terminal=true entry) comes back with that window:
        // it is no left-out app of its own.
        let keptPIDs = Set(kept.values.joined().map(\.pid))
        var leftOut: [String: (reason: String, count: Int)] = [:]
        for (app, reason) in excluded where !(reason == .terminal && Self.runs(app.pid, below: keptPIDs)) {
            leftOut[app.desktopID, default: (reason.rawValue, 0)].count += 1
        }
        // Apps a restore could not reopen stay in the archive for the next
        // try, until the user runs them again.
        carried = carried.filter { kept[$0.key] == nil }
        let counts = kept.mapValues(\.count)
        let fewer = savedCounts.filter { counts[$0.key, default: 0] < $0.value }.keys.sorted()
        if !fewer.isEmpty || (kept.isEmpty && carried.isEmpty), context.saveOccasion?.endsSession == true {
            context.log(fewer.isEmpty
                ? "no app is left while the session ends: keeping the last archive"
                : "\(fewer.joined(separator: ", ")) closed while the session ends: keeping the last archive")
            return .keepLastArchive
        }
        savedCounts = counts
        let placer = windowPlacer(environment: environment)
        let windows = placer?.windowsByProcess() ?? [:]
        let sessionBus = (placer as? GnomeShellWindowPlacer)?.bus
        kept = keptItems(kept, sessionBus: sessionBus)
        editorReadDeadline = WalkTime.deadline(in: context, atMost: Self.editorReadBudget)
        roots = Set(kept.keys).union(carried.keys).sorted().map { id in
            if let instances = kept[id] {
                DesktopAppObject(desktopID: id, instances: instances, entry: entries[id], windows: windows, shells: { self.terminalShells(of: $0, windows: $1, sessionBus: sessionBus) })
            } else {
                DesktopAppObject(desktopID: id, carrying: carried[id] ?? [])
            }
        }
        if !leftOut.isEmpty {
            roots.append(ExcludedApps(leftOut.keys.sorted().map { ExcludedApp(desktopID: $0, reason: leftOut[$0]!.reason, instances: leftOut[$0]!.count) }))
        }
        return !kept.isEmpty || !carried.isEmpty ? .save : .decline
    }

    /// The files and URLs each app keeps in the archive: a URL's query,
    /// credentials and fragment only where the user keeps them
    /// (`keep-url-queries`, ``DesktopAppLauncher/keptForm(of:keepingQueries:)``),
    /// and none for a media player the media players' plugin saves
    /// (docs/apps.md, "Media players": by the one rule of both plugins,
    /// ``MediaPlayerPolicy/saved(_:of:entries:searchPath:keepingQueries:)``):
    /// it comes back with no file, silent, and that plugin hands it its
    /// track, position and state. A player that plugin leaves out, or one
    /// that cannot be asked, keeps its files.
    /// `sessionBus` is the placer's connection when it has one (else one
    /// is made here, only when a media player may be among the apps).
    private func keptItems(_ kept: [String: [RunningApp]], sessionBus: DBusClient?) -> [String: [RunningApp]] {
        let keepsQueries = OptionList.isOn(context.options[DesktopAppLauncher.keepURLQueriesOption])
        var players = Set<Int32>()
        let candidates = Set(kept.filter { MediaPlayerPolicy.reasonNotRestored(entries[$0.key]) == nil }.values.joined().map(\.pid))
        if exclusions.plugins.contains(Self.mediaPlayersAppID), !candidates.isEmpty {
            let deadline = WalkTime.deadline(in: context, atMost: .seconds(3))
            if let bus = sessionBus ?? (try? DBusClient.connect(until: deadline)) {
                let searchPath = ExecutableSearchPath.of(environment)
                for player in (try? MediaPlayer.all(on: bus, until: deadline)) ?? [] where player.name.notAppReason == nil && candidates.contains(player.pid) {
                    guard let state = try? player.state(on: bus, until: min(deadline, .now + .seconds(1))),
                          case .success = MediaPlayerPolicy.saved(state, of: player, entries: entries, searchPath: searchPath, keepingQueries: keepsQueries)
                    else { continue }
                    players.insert(player.pid)
                }
                if bus !== sessionBus { bus.close() }
            }
        }
        return kept.mapValues { apps in
            apps.map { app in
                var app = app
                app.openedItems = players.contains(app.pid) ? [] : app.openedItems.map { DesktopAppLauncher.keptForm(of: $0, keepingQueries: keepsQueries) }
                return app
            }
        }
    }

    // MARK: Restoring

    /// The list of apps the last save left out (`left-out` and its
    /// children), given back as that list (R8 step 2): it is the record of
    /// what was not saved, so nothing of it is reopened, and it is no object
    /// "not restored" either. The next save lists what it leaves out anew.
    func object(forRestorationIdentifierPath path: RestorationPath, coder: StateCoder) -> (any RestorableObject)? {
        let identifiers = path.identifiers
        guard identifiers.first == ExcludedApps.identifier else { return nil }
        switch identifiers.count {
        case 1: return ExcludedApps([])
        case 2: return ExcludedApp(desktopID: identifiers[1], reason: "", instances: 0)
        default: return nil
        }
    }

    /// The instances a restore could not reopen (the launch failed, or the
    /// app exited within ``earlyExitWindow``), by desktop id: carried into
    /// every save until the user runs the app again, so the next login tries
    /// again.
    private var carried: [String: [AppInstanceObject]] = [:]
    /// How long a relaunched app must live to count as reopened: one that
    /// exits sooner (no display, a crash at start) failed to launch.
    static let earlyExitWindow: Duration = .seconds(3)

    /// The restore under way.
    var restore = SessionRestore()

    func shouldRestoreApplicationState(coder: StateCoder) -> Bool {
        refreshEntries()
        restore = SessionRestore(runningBefore: Dictionary(grouping: RunningAppScanner().scan(entries), by: \.desktopID).mapValues(\.count))
        return true
    }

    /// How many instances of `id` run now.
    func runningCount(of id: String) -> Int { restore.runningBefore[id, default: 0] }

    /// Whether `id` is left out now (an option or a plugin changed since the save).
    func isLeftOut(_ id: String) -> Bool { exclusions.reason(for: id, entry: entries[id]) != nil }

    /// Writes the one-use script a terminal window runs to start
    /// `program` again (``ProgramScript``) in `$XDG_RUNTIME_DIR`: then
    /// the user's shell, or (`alone`) nothing, the window closing with it.
    func writeTerminalScript(running program: [String], alone: Bool = false) throws -> ProgramScript {
        guard let directory = OneUseFile.directory(environment: environment) else {
            throw OneUseFileError.noRuntimeDirectory
        }
        return try ProgramScript.write(arguments: program, in: directory, forTerminal: true, alone: alone)
    }

    /// Queues the launch of a kitty that opens `kitty`'s OS windows, tabs
    /// and layouts again from a one-use session file (`kitty --session`),
    /// each window's program started by its one-use script.
    func pendKitty(_ kitty: KittyLayout, entry: DesktopEntry, placing windows: [SavedWindow], for instance: AppInstanceObject, path: String) throws {
        var scripts: [Int: ProgramScript] = [:]
        do {
            for (index, window) in kitty.windows.enumerated() {
                guard let program = window.program else { continue }
                scripts[index] = try writeTerminalScript(running: program)
            }
            guard let directory = OneUseFile.directory(environment: environment) else {
                throw OneUseFileError.noRuntimeDirectory
            }
            let session = try OneUseFile.create(prefix: "restored-kitty-session", contents: kitty.sessionFile(scripts: scripts), in: directory)
            let files = [session] + scripts.values.map(\.path)
            restore.pend(DesktopLaunch(entry: entry, directory: kitty.windows.first?.directory, items: [], arguments: ["--session", session.string]), placing: windows, for: instance, files: files)
            restore.removeAtEnd(session)
            for (index, script) in scripts { if let editor = kitty.windows[index].editor { restore.editorWaits(for: script.path, editor, path: path) } }
        } catch {
            for script in scripts.values { unlink(script.path.string) }
            throw error
        }
    }

    /// How long the Neovims of the restored terminal windows have, together,
    /// to come up and take their state (a hang guard on a loaded machine),
    /// every Neovim request included.
    static let editorStartTimeout: Duration = .seconds(15)

    /// Replays each Neovim's state into the nvim its window's script
    /// started, each as soon as it listens; the windows are watched
    /// together, so a Neovim that never comes costs the others nothing.
    func replayEditors(_ editors: [SessionRestore.PendingEditor]) {
        NeovimReplayQueue.replay(editors, within: Self.editorStartTimeout, sizing: .shares, session: \.session) { pending, _ in
            guard let shell = Self.scriptProcesses([pending.script.string])[pending.script.string], let program = ForegroundProgram.of(panePID: shell),
                  NeovimServer.isNeovim(pid: program.pid)
            else { return nil }
            return NeovimServer.sockets(ofProcess: program.pid).first
        } report: { outcome in
            for line in outcome.lines(name: \.path, place: { _ in "its window" }, timeout: Self.editorStartTimeout) {
                context.log(line.text, level: line.warning ? .warning : .notice)
            }
        }
    }

    /// The processes of this user running one of `scripts` (`/bin/sh SCRIPT`), by script.
    private static func scriptProcesses(_ scripts: Set<String>) -> [String: Int32] {
        let uid = getuid()
        var found: [String: Int32] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(name), ProcProcess.mayBelong(pid, to: uid),
                  let arguments = ProcProcess.commandLine(of: pid), arguments.count == 2, arguments[0] == "/bin/sh", scripts.contains(arguments[1])
            else { continue }
            found[arguments[1]] = pid
        }
        return found
    }

    /// How long a restore waits for the relaunched apps' windows to map.
    static let placementBudget: Duration = .seconds(8)

    /// How long the launches of one restore may take together: they run
    /// inside the restore walk, which has a deadline of its own.
    static let launchBudget: Duration = .seconds(15)

    /// Starts the restore's launches, one every ``launchInterval`` (all
    /// within ``launchBudget``), places their windows, and carries the
    /// instances that did not come up into the next saves; a launch that
    /// fails is one log line for its app.
    func restorationDidFinish() {
        let finished = restore
        restore = SessionRestore()
        let pending = finished.launches
        let launches = pending.map(\.launch)
        let environment = environment
        // Spread out, but all within the budget.
        let interval = launches.count > 1 ? min(launchInterval, Self.launchBudget / (launches.count - 1)) : launchInterval
        if savedCounts.isEmpty { savedCounts = finished.archivedCounts }
        guard !launches.isEmpty else { return }
        // The windows there before, so that only the new ones are placed.
        let placer = pending.contains { !$0.placements.isEmpty } ? windowPlacer(environment: environment) : nil
        // (A placer that hands the places over before the launches needs none.)
        let before = (placer as? any MovingWindowPlacer)?.windowIDs() ?? []
        placer?.prepare(pending.map { ($0.launch.entry.path, $0.placements) })
        // Every wait of the launches, D-Bus calls included, ends by the
        // budget's end, and by the walk's.
        let deadline = WalkTime.deadline(in: context, atMost: Self.launchBudget)
        @Sendable func left() -> Duration { max(.zero, ContinuousClock.now.duration(to: deadline)) }
        let outcomes = Blocking.run(until: deadline + .seconds(1)) { () async -> [Result<DesktopLaunchResult, LaunchError>] in
            let connection = await UserUnitLauncher.connectToManagerBus(environment: environment, within: min(.seconds(2), left()))
            defer { connection?.close() }
            var outcomes: [Result<DesktopLaunchResult, LaunchError>] = []
            for (index, launch) in launches.enumerated() {
                if index > 0 { try? await Task.sleep(for: interval) }
                guard left() > .zero else {
                    outcomes.append(.failure(.notStartedInBudget(what: launch.entry.id, budget: Self.launchBudget)))
                    continue
                }
                do throws(LaunchError) {
                    outcomes.append(.success(try await DesktopAppLauncher(connection: connection, environment: environment, budget: left()).launch(launch)))
                } catch {
                    outcomes.append(.failure(error))
                }
            }
            return outcomes
        } ?? launches.map { .failure(.notStartedInBudget(what: $0.entry.id, budget: Self.launchBudget)) }
        let launched = ContinuousClock.now
        var detached = 0
        var failedInstances: [ObjectIdentifier: (id: String, instance: AppInstanceObject)] = [:]
        for (launch, outcome) in zip(pending, outcomes) {
            switch outcome {
            case .failure(let error):
                context.log("\(launch.launch.entry.id): not reopened: \(error); it stays in the archive for the next login", level: .warning)
                // Its window's files will never be read.
                for file in launch.files { unlink(file.string) }
                failedInstances[ObjectIdentifier(launch.instance)] = (launch.launch.entry.id, launch.instance)
            case .success(.detached): detached += 1
            case .success: break
            }
        }
        if detached > 0 {
            context.log("no user manager answers: \(detached) app(s) were started by restored and keep its sandbox", level: .warning)
        }
        let failed = outcomes.filter { if case .failure = $0 { true } else { false } }.count
        // Each launched app's windows go where they were, once they map.
        if let placer {
            let started = zip(pending, outcomes).compactMap { launch, outcome -> (entryPath: String, places: [SavedWindow])? in
                if case .success = outcome { (launch.launch.entry.path, launch.placements) } else { nil }
            }
            let placed = placer.place(started, before: before, deadline: WalkTime.deadline(in: context, atMost: Self.placementBudget))
            context.log("placed \(placed) window(s) where they were", level: .info)
        }
        // The Neovims the terminal windows start take their state.
        let failedScripts = Set(zip(pending, outcomes).flatMap { launch, outcome -> [FilePath] in
            if case .failure = outcome { launch.files } else { [] }
        })
        replayEditors(finished.editors.filter { !failedScripts.contains($0.script) })
        // An app none of whose launches runs a few seconds later failed to
        // launch. (An app that hands its launch over to an instance already
        // running counts as running; some windows of a terminal dying while
        // others live are not told apart.)
        var exitedEarly = 0
        let started = Dictionary(grouping: zip(pending, outcomes).compactMap { launch, outcome in
            if case .success = outcome { launch } else { nil }
        }, by: \.launch.entry.id)
        if !started.isEmpty {
            let remaining = Self.earlyExitWindow - (ContinuousClock.now - launched)
            // One sleep for the rest of the window: nothing to check before it ends.
            if remaining > .zero { _ = Waiting.until(.now + remaining, every: remaining) { false } }
            let runningAfter = Dictionary(grouping: RunningAppScanner().scan(entries), by: \.desktopID).mapValues(\.count)
            for (id, launchesOfApp) in started.sorted(by: { $0.key < $1.key }) where runningAfter[id, default: 0] <= finished.runningBefore[id, default: 0] {
                context.log("\(id): exited within \(Self.earlyExitWindow) of its launch (is its display there? does it start by hand?): not reopened; it stays in the archive for the next login", level: .warning)
                exitedEarly += launchesOfApp.count
                for launch in launchesOfApp {
                    failedInstances[ObjectIdentifier(launch.instance)] = (id, launch.instance)
                    // It is gone: the files it would have read are too.
                    for file in launch.files { unlink(file.string) }
                }
            }
        }
        carried = Dictionary(grouping: failedInstances.values, by: \.id).mapValues { $0.map(\.instance).sorted { ($0.restorationIdentifier ?? "") < ($1.restorationIdentifier ?? "") } }
        let notReopened = failed + exitedEarly
        context.log("reopened \(launches.count - notReopened) app instance(s)\(notReopened > 0 ? ", \(notReopened) failed" : "")", level: notReopened > 0 ? .warning : .info)
        // Read by now (the early-exit check waited for the launches' first seconds).
        for file in finished.leftFiles { unlink(file.string) }
    }
}

#if canImport(Glibc)
import Glibc
#endif
