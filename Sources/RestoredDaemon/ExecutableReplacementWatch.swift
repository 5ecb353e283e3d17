import Dispatch
import Glibc

/// Sees the running restored's executable replaced on disk: an upgrade
/// (dpkg renames the new file over the old, `scripts/install` writes a new
/// one), through inotify on its directory.
///
/// Nothing runs until a file of that directory is written or renamed
/// into it; then the executable's path is compared with what ran (its
/// device and inode, its size and modification time).
///
/// Without inotify (the user's `fs.inotify.max_user_instances` used up by
/// other programs) the watch still knows the path restored started from,
/// which `/proc/self/exe` no longer gives once the file is replaced
/// (`... (deleted)`): ``UpgradeService`` then looks at that path when a
/// plugin host of another version starts.
///
/// Unchecked Sendable: its dispatch source is safe to cancel from any
/// thread; everything else is immutable.
final class ExecutableReplacementWatch: @unchecked Sendable {
    /// The running executable's path, as it was when restored started.
    let path: String
    /// Whether inotify watches the path; false when the file is looked at
    /// only when asked (``isReplaced``).
    var isWatching: Bool { source != nil }
    private let running: Identity
    private let source: (any DispatchSourceRead)?

    /// The identity of a file: what tells a replaced executable from the one that runs.
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: Int64

        /// The identity of the file at `path`; nil when there is none.
        init?(of path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        }
    }

    /// Watches the directory of the running executable (`/proc/self/exe`)
    /// and calls `replaced` each time a different file is at its path (at
    /// once when one is there already); when inotify cannot watch it, says
    /// why in `problem` and only remembers the path. Nil when restored's
    /// own executable cannot be found (the reason is in `problem`).
    init?(problem: (String) -> Void, replaced: @escaping @Sendable () -> Void) {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0, let running = Identity(of: "/proc/self/exe") else {
            problem("cannot find restored's own executable (/proc/self/exe); an upgrade takes effect at the next login or restart")
            return nil
        }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.path = path
        self.running = running
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        let name = String(path[(path.index(after: path.lastIndex(of: "/") ?? path.startIndex))...])
        let descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard descriptor >= 0, inotify_add_watch(descriptor, directory.isEmpty ? "/" : directory, UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE)) >= 0 else {
            let error = errno
            if descriptor >= 0 { close(descriptor) }
            problem("cannot watch \(directory) for an upgrade of restored (\(String(cString: strerror(error)))); restored sees an upgrade when a plugin host of the new version starts (at the next save), or at the next login or restart; raise fs.inotify.max_user_instances if it is used up")
            source = nil
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: DispatchQueue(label: "restored.executable"))
        source.setEventHandler {
            var events = [UInt8](repeating: 0, count: 4096)
            var named = false
            while true {
                let count = events.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                named = named || Self.names(events[..<count]).contains(name)
            }
            if named, let now = Identity(of: path), now != running { replaced() }
        }
        source.setCancelHandler { close(descriptor) }
        source.activate()
        self.source = source
        // Replaced before the watch began (an upgrade during the login's restore).
        if isReplaced { replaced() }
    }

    /// Whether another file than the one that runs is at ``path`` now.
    var isReplaced: Bool {
        Identity(of: path).map { $0 != running } ?? false
    }

    /// Stops watching.
    func stop() {
        source?.cancel()
    }

    /// The file names of the inotify events in `bytes` (`struct
    /// inotify_event`: wd, mask, cookie, len, then the name).
    static func names(_ bytes: ArraySlice<UInt8>) -> [String] {
        var names: [String] = []
        var offset = bytes.startIndex
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= bytes.endIndex {
            let length = Int(bytes[offset + 12 ..< offset + 16].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) })
            names.append(String(decoding: bytes[offset + header ..< min(offset + header + length, bytes.endIndex)].prefix { $0 != 0 }, as: UTF8.self))
            offset += header + length
        }
        return names
    }
}
