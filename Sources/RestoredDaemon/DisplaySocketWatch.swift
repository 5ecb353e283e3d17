import Dispatch
import FoundationEssentials
import Glibc
import Synchronization

/// Sees displays come and go where their sockets live: X servers in
/// `/tmp/.X11-unix` (`X0` is display `:0`), Wayland compositors in the
/// runtime directory (`wayland-1`), through inotify.
///
/// A display's socket is made when its server starts and removed when it
/// exits: the first word of a desktop starting (before it exports its
/// variables to the user manager) and a word of its end. The watch is an
/// inotify descriptor read by a dispatch source: nothing runs until a
/// socket is made or removed in those directories. `/tmp/.X11-unix` is made
/// at boot by systemd's `tmpfiles.d/x11.conf`, or by the first X server
/// (Xwayland included) where that entry is missing or `/tmp` was cleaned:
/// while it does not exist, its parent is watched for that one name (it is
/// root's, mode 1777: restored never makes it), and once it is made its X
/// sockets are watched, those already there reported at once; when it goes,
/// its parent is watched again. The changes are an async sequence
/// (``changes``), ended by ``stop()``.
///
/// Unchecked Sendable: its dispatch source is safe to cancel from any
/// thread, its watches change only on its queue, under a lock.
final class DisplaySocketWatch: @unchecked Sendable {
    /// A display socket made or removed.
    enum Change: Sendable, Hashable {
        /// The socket of `display` (`:0`, `wayland-1`) was made.
        case appeared(String)
        /// The socket of `display` was removed.
        case removed(String)
    }

    /// What a watch is on.
    enum Watched: Sendable, Hashable {
        /// The directory of X sockets.
        case x11
        /// The runtime directory (Wayland sockets).
        case runtime
        /// The parent of the X sockets' directory, until that is made.
        case x11Parent
    }

    /// Where X servers make their sockets.
    static let x11Directory = "/tmp/.X11-unix"
    /// How often restored looks for a desktop where no display socket can
    /// be watched: a desktop that starts no `graphical-session.target` (a
    /// window manager started from a console) is seen no later.
    static let lookInterval = Duration.seconds(60)

    /// The events a directory of sockets is watched for.
    private static let socketMask = UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM)
    /// The events the X directory's parent is watched for: a directory made or moved in.
    private static let parentMask = UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_ONLYDIR)

    private let descriptor: Int32
    private let source: any DispatchSourceRead
    private let x11Path: String
    /// Says what cannot be watched, at the start and when a watch moved
    /// along with the X directory cannot be made.
    private let problem: @Sendable (String) -> Void
    /// The watches by descriptor.
    private let watches: Mutex<[Int32: Watched]>
    /// Each display socket made or removed, in order, until ``stop()``.
    let changes: AsyncStream<Change>
    private let changed: AsyncStream<Change>.Continuation

    /// Watches `x11Directory` (or its parent until it exists) and
    /// `runtimeDirectory` (when given), telling each display socket made or
    /// removed in ``changes``; nil when nothing can be watched (the reason
    /// is in `problem`).
    init?(runtimeDirectory: String?, x11Directory: String = DisplaySocketWatch.x11Directory, problem: @escaping @Sendable (String) -> Void) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard descriptor >= 0 else {
            problem("cannot watch display sockets (inotify_init1: \(String(cString: strerror(errno)))); restored looks for a desktop once a minute instead (one that starts graphical-session.target is seen at once); raise fs.inotify.max_user_instances if it is used up, then restart restored")
            return nil
        }
        var watches: [Int32: Watched] = [:]
        if let (watch, watched) = Self.watchX11(descriptor, x11Directory, problem: problem) { watches[watch] = watched }
        if let runtimeDirectory {
            let watch = inotify_add_watch(descriptor, runtimeDirectory, Self.socketMask)
            if watch >= 0 {
                watches[watch] = .runtime
            } else {
                problem("cannot watch \(runtimeDirectory) for displays (\(String(cString: strerror(errno)))); its displays are found by the user manager's signals alone")
            }
        }
        guard !watches.isEmpty else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        self.problem = problem
        x11Path = x11Directory
        self.watches = Mutex(watches)
        (changes, changed) = AsyncStream.makeStream()
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: DispatchQueue(label: "restored.display-sockets"))
        source.setEventHandler { [weak self, changed] in
            guard let self else { return }
            for change in handle(InotifyEvent.drain(descriptor)) { changed.yield(change) }
        }
        source.setCancelHandler { [changed] in
            close(descriptor)
            changed.finish()
        }
        source.activate()
    }

    /// Stops watching, which ends ``changes``.
    func stop() {
        source.cancel()
    }

    /// The watch of the X sockets' directory `path`, or of its parent
    /// while it does not exist; nil (and the reason in `problem`) when
    /// neither can be watched.
    private static func watchX11(_ descriptor: Int32, _ path: String, problem: (String) -> Void) -> (Int32, Watched)? {
        let watch = inotify_add_watch(descriptor, path, socketMask)
        if watch >= 0 { return (watch, .x11) }
        let error = errno
        let parent = parentDirectory(of: path)
        if error == ENOENT {
            let parentWatch = inotify_add_watch(descriptor, parent, parentMask)
            if parentWatch >= 0 {
                // Made in the meantime: watched itself after all.
                let late = inotify_add_watch(descriptor, path, socketMask)
                guard late >= 0 else { return (parentWatch, .x11Parent) }
                inotify_rm_watch(descriptor, parentWatch)
                return (late, .x11)
            }
            problem("cannot watch \(parent) for \(path) to be made (\(String(cString: strerror(errno)))); X displays are found by the user manager's signals alone")
            return nil
        }
        problem("cannot watch \(path) for displays (\(String(cString: strerror(error)))); its displays are found by the user manager's signals alone")
        return nil
    }

    private static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The display sockets made or removed that `events` tell, the watches
    /// moved along as the X directory comes and goes. Runs on the queue.
    private func handle(_ events: [InotifyEvent]) -> [Change] {
        var changes: [Change] = []
        let name = String(x11Path[x11Path.index(after: x11Path.lastIndex(of: "/") ?? x11Path.startIndex)...])
        for event in events {
            switch watches.withLock({ $0[event.watch] }) {
            case .x11Parent?:
                if event.has(IN_IGNORED) {
                    // The parent is gone too: watched again where it can be, else said.
                    watches.withLock { $0[event.watch] = nil }
                    if let (watch, watched) = Self.watchX11(descriptor, x11Path, problem: problem) { watches.withLock { $0[watch] = watched } }
                    continue
                }
                guard event.name == name, event.has(IN_CREATE | IN_MOVED_TO) else { continue }
                changes += watchMadeX11Directory(parentWatch: event.watch)
            case .x11?:
                if event.has(IN_IGNORED) {
                    // The directory is gone (its watch with it): its parent again.
                    watches.withLock { $0[event.watch] = nil }
                    if let (watch, watched) = Self.watchX11(descriptor, x11Path, problem: problem) { watches.withLock { $0[watch] = watched } }
                    continue
                }
                changes += Self.change(event, x11: true)
            case .runtime?:
                changes += Self.change(event, x11: false)
            case nil:
                continue
            }
        }
        return changes
    }

    /// Watches the X directory once it was made in its parent (watched by
    /// `parentWatch`), and reports the sockets already in it.
    private func watchMadeX11Directory(parentWatch: Int32) -> [Change] {
        let watch = inotify_add_watch(descriptor, x11Path, Self.socketMask)
        guard watch >= 0 else {
            // Its parent stays watched: the next directory made there is tried again.
            problem("cannot watch \(x11Path) for displays (\(String(cString: strerror(errno)))); until it can be, X displays are found by the user manager's signals alone")
            return []
        }
        inotify_rm_watch(descriptor, parentWatch)
        watches.withLock {
            $0[parentWatch] = nil
            $0[watch] = .x11
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: x11Path)) ?? []
        return names.sorted().compactMap { Self.display(named: $0, x11: true).map(Change.appeared) }
    }

    /// The display socket change `event` in a directory of sockets tells, if any.
    private static func change(_ event: InotifyEvent, x11: Bool) -> [Change] {
        guard let display = display(named: event.name, x11: x11) else { return [] }
        return [event.has(IN_CREATE | IN_MOVED_TO) ? .appeared(display) : .removed(display)]
    }

    /// The display a socket's file name is for: `X3` in `/tmp/.X11-unix` is
    /// `:3`, `wayland-1` in the runtime directory is itself; nil for any
    /// other file (a compositor's `.lock`, the user bus).
    static func display(named name: String, x11: Bool) -> String? {
        if x11 {
            guard name.hasPrefix("X"), name.count > 1, name.dropFirst().allSatisfy(\.isNumber) else { return nil }
            return ":" + name.dropFirst()
        }
        guard name.hasPrefix("wayland-"), !name.hasSuffix(".lock") else { return nil }
        return name
    }
}

extension DisplaySocketWatch {
    /// Whether a display's socket in `/tmp/.X11-unix` or `runtimeDirectory`
    /// takes a connection now.
    static func anyDisplayUp(runtimeDirectory: String?) -> Bool {
        let places = [(x11Directory, true)] + (runtimeDirectory.map { [($0, false)] } ?? [])
        for (directory, holdsX) in places {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { continue }
            for name in names {
                guard let display = display(named: name, x11: holdsX) else { continue }
                let variables = holdsX ? ["DISPLAY": display] : ["WAYLAND_DISPLAY": display]
                if GraphicalSession.reachesDisplay(variables, runtimeDirectory: runtimeDirectory) { return true }
            }
        }
        return false
    }
}
