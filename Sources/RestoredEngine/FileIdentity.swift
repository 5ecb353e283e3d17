import Glibc
public import SystemPackage

/// Which file a path names, and its version: device, inode and modification
/// time, following symbolic links. Two readings differ when the file was
/// replaced or rewritten in between.
public struct FileIdentity: Hashable, Sendable, Codable {
    let device: UInt64
    let inode: UInt64
    let modifiedSeconds: Int
    let modifiedNanoseconds: Int

    /// The identity of the file at `path` now, or nil when it cannot be read.
    public init?(of path: FilePath) {
        var status = stat()
        guard stat(path.string, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        modifiedSeconds = status.st_mtim.tv_sec
        modifiedNanoseconds = status.st_mtim.tv_nsec
    }
}
