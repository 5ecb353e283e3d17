import FoundationEssentials
public import SystemPackage

/// One tmux server of the user: the socket it listens on.
///
/// Every server of the user has a socket in `${TMUX_TMPDIR:-/tmp}/tmux-<uid>/`
/// (`default` for plain `tmux`, the `-L` name otherwise).
public struct TmuxServer: Hashable, Sendable {
    /// The socket's path.
    public var socket: FilePath

    /// The server's name: its socket's file name (`default`, or `-L`'s).
    public var name: String { socket.lastComponent?.string ?? socket.string }

    /// The server listening on `socket`.
    public init(socket: FilePath) {
        self.socket = socket
    }

    /// The directory of the user's sockets.
    public static func socketDirectory(environment: [String: String], uid: UInt32? = nil) -> FilePath {
        let uid = uid ?? getuid()
        let base = environment["TMUX_TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return FilePath(base).appending("tmux-\(uid)")
    }

    /// Every socket in the user's socket directory, by name; none when the
    /// directory does not exist (tmux never ran). A socket may be stale: its
    /// server gone (tmux leaves the file behind).
    public static func sockets(environment: [String: String], uid: UInt32? = nil) -> [TmuxServer] {
        let uid = uid ?? getuid()
        let directory = socketDirectory(environment: environment, uid: uid)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.string) else { return [] }
        return names.sorted().compactMap { name in
            let path = directory.appending(name)
            var status = stat()
            guard lstat(path.string, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK, status.st_uid == uid else { return nil }
            return TmuxServer(socket: path)
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
