import Glibc
import RestoredEngine
import SystemPackage

/// restored's own executable as it was when restored started: the path it
/// ran from and the identity of the file that runs.
///
/// Taken at the daemon's start, before any upgrade can rename a new file
/// over it: once that happens, `/proc/self/exe` names `PATH (deleted)`.
struct RunningExecutable: Sendable {
    /// The path restored ran from.
    let path: String
    /// The file that runs.
    let identity: FileIdentity

    /// The executable of this process (`/proc/self/exe` by default), or nil
    /// when it cannot be read. A file already replaced (the kernel's
    /// ` (deleted)` after its path) gives the path without that mark, so
    /// that the new file there is seen as the replacement it is.
    init?(link: String = "/proc/self/exe") {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(link, &buffer, buffer.count - 1)
        guard length > 0, let identity = FileIdentity(of: FilePath(link)) else { return nil }
        var path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let deleted = " (deleted)"
        if path.hasSuffix(deleted), FileIdentity(of: FilePath(path)) != identity {
            path.removeLast(deleted.count)
        }
        self.path = path
        self.identity = identity
    }

    /// Whether another file than the one that runs is at ``path`` now.
    var isReplaced: Bool {
        FileIdentity(of: FilePath(path)).map { $0 != identity } ?? false
    }
}
