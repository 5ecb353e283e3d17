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
/// socket is made or removed in those two directories. `/tmp/.X11-unix` is
/// made at boot by systemd's `tmpfiles.d/x11.conf`; where it is missing,
/// X displays are found by the user manager's signals alone.
///
/// Unchecked Sendable: its dispatch source is safe to cancel from any
/// thread; everything else is immutable.
final class DisplaySocketWatch: @unchecked Sendable {
    /// A display socket made or removed.
    enum Change: Sendable, Hashable {
        /// The socket of `display` (`:0`, `wayland-1`) was made.
        case appeared(String)
        /// The socket of `display` was removed.
        case removed(String)
    }

    /// Where X servers make their sockets.
    static let x11Directory = "/tmp/.X11-unix"
    /// How often restored looks for a desktop where no display socket can
    /// be watched: a desktop that starts no `graphical-session.target` (a
    /// window manager started from a console) is seen no later.
    static let lookInterval = Duration.seconds(60)

    private let descriptor: Int32
    private let source: any DispatchSourceRead
    /// The watched directories by watch descriptor, and whether each holds X sockets.
    private let directories: [Int32: Bool]

    /// Watches `/tmp/.X11-unix` and `runtimeDirectory` (when given), calling
    /// `changed` for each display socket made or removed; nil when neither
    /// can be watched (the reason is in `problem`).
    init?(runtimeDirectory: String?, problem: (String) -> Void, changed: @escaping @Sendable (Change) -> Void) {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard descriptor >= 0 else {
            problem("cannot watch display sockets (inotify_init1: \(String(cString: strerror(errno)))); restored looks for a desktop once a minute instead (one that starts graphical-session.target is seen at once); raise fs.inotify.max_user_instances if it is used up, then restart restored")
            return nil
        }
        var directories: [Int32: Bool] = [:]
        let mask = UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_MOVED_TO) | UInt32(IN_MOVED_FROM)
        for (path, holdsX) in [(Self.x11Directory, true)] + (runtimeDirectory.map { [($0, false)] } ?? []) {
            let watch = inotify_add_watch(descriptor, path, mask)
            if watch >= 0 {
                directories[watch] = holdsX
            } else {
                problem("cannot watch \(path) for displays (\(String(cString: strerror(errno)))); its displays are found by the user manager's signals alone")
            }
        }
        guard !directories.isEmpty else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        self.directories = directories
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: DispatchQueue(label: "restored.display-sockets"))
        source.setEventHandler { [directories] in
            for change in Self.drain(descriptor, directories: directories) { changed(change) }
        }
        source.setCancelHandler { close(descriptor) }
        source.activate()
    }

    /// Stops watching.
    func stop() {
        source.cancel()
    }

    /// Reads every queued inotify event of `descriptor` and returns the
    /// display sockets among them.
    private static func drain(_ descriptor: Int32, directories: [Int32: Bool]) -> [Change] {
        var changes: [Change] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return changes }
            changes += parse(buffer[..<count], directories: directories)
        }
    }

    /// The display sockets named by the inotify events in `bytes`
    /// (`struct inotify_event`: wd, mask, cookie, len, then the name).
    static func parse(_ bytes: ArraySlice<UInt8>, directories: [Int32: Bool]) -> [Change] {
        var changes: [Change] = []
        var offset = bytes.startIndex
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= bytes.endIndex {
            let field = { (at: Int) -> UInt32 in
                bytes[offset + at ..< offset + at + 4].enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * $1.offset) }
            }
            let watch = Int32(bitPattern: field(0)), mask = field(4), length = Int(field(12))
            let nameBytes = bytes[offset + header ..< min(offset + header + length, bytes.endIndex)].prefix { $0 != 0 }
            offset += header + length
            guard let holdsX = directories[watch], let display = display(named: String(decoding: nameBytes, as: UTF8.self), x11: holdsX) else { continue }
            let made = mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0
            changes.append(made ? .appeared(display) : .removed(display))
        }
        return changes
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
