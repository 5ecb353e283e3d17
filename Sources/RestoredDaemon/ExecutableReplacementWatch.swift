import Dispatch
import Glibc

/// Sees the running restored's executable replaced on disk: an upgrade
/// (dpkg renames the new file over the old, `scripts/install` writes a new
/// one), through inotify on its directory.
///
/// Nothing runs until a file of that directory is written or renamed
/// into it; then the executable's path is compared with what ran (its
/// device and inode and its modification time: ``RunningExecutable``).
///
/// Unchecked Sendable: its dispatch source is safe to cancel from any
/// thread; everything else is immutable.
final class ExecutableReplacementWatch: @unchecked Sendable {
    private let source: any DispatchSourceRead

    /// Watches the directory of `executable` and calls `replaced` each
    /// time a different file is at its path (at once when one is there
    /// already); nil when inotify cannot watch it (the user's
    /// `fs.inotify.max_user_instances` used up by other programs), with
    /// the reason in `problem`.
    init?(_ executable: RunningExecutable, problem: (String) -> Void, replaced: @escaping @Sendable () -> Void) {
        let path = executable.path
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        let name = String(path[(path.index(after: path.lastIndex(of: "/") ?? path.startIndex))...])
        let descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard descriptor >= 0, inotify_add_watch(descriptor, directory.isEmpty ? "/" : directory, UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE)) >= 0 else {
            let error = errno
            if descriptor >= 0 { close(descriptor) }
            problem("cannot watch \(directory) for an upgrade of restored (\(String(cString: strerror(error))))")
            return nil
        }
        source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: DispatchQueue(label: "restored.executable"))
        source.setEventHandler {
            let named = InotifyEvent.drain(descriptor).contains { $0.name == name }
            if named, executable.isReplaced { replaced() }
        }
        source.setCancelHandler { close(descriptor) }
        source.activate()
        // Replaced before the watch began (an upgrade during the login's restore).
        if executable.isReplaced { replaced() }
    }

    /// Stops watching.
    func stop() {
        source.cancel()
    }
}
