public import SystemPackage
import Glibc

extension FileSystem {
    /// A directory held open, and the path it was opened by: calls made
    /// relative to it (`openat(2)`, `renameat(2)` and the other `*at`
    /// calls) reach the directory that was opened, whatever the path names
    /// meanwhile. The path is only for messages and interceptors.
    public struct Directory: Sendable {
        /// The open directory (`O_RDONLY|O_DIRECTORY`).
        public var descriptor: FileDescriptor
        /// The path the directory was opened by.
        public var path: FilePath

        /// Names an open directory.
        public init(descriptor: FileDescriptor, path: FilePath) {
            self.descriptor = descriptor
            self.path = path
        }

        /// The path of `name` in the directory, for messages.
        public func path(of name: String) -> FilePath {
            path.appending(name)
        }
    }

    /// Opens the directory `path` itself (`O_RDONLY|O_DIRECTORY|O_NOFOLLOW`):
    /// a final symbolic link fails with `ELOOP`, anything else that is not
    /// a directory with `ENOTDIR`.
    public func openDirectory(_ path: FilePath) throws(Errno) -> Directory {
        try interceptor(Call(operation: .open, path: path))
        let descriptor = try Self.rawOpen(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, nil)
        return Directory(descriptor: descriptor, path: path)
    }

    /// Opens the directory `name` in `directory`, as ``openDirectory(_:)`` does.
    public func openDirectory(_ name: String, in directory: Directory) throws(Errno) -> Directory {
        let path = directory.path(of: name)
        try interceptor(Call(operation: .open, path: path))
        let descriptor = try Self.rawOpen(name, in: directory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, nil)
        return Directory(descriptor: descriptor, path: path)
    }

    /// Opens the file `name` in `directory` with `mode` and `options`
    /// (close-on-exec is always added).
    public func open(
        _ name: String,
        in directory: Directory,
        _ mode: FileDescriptor.AccessMode,
        options: FileDescriptor.OpenOptions = []
    ) throws(Errno) -> FileDescriptor {
        try interceptor(Call(operation: .open, path: directory.path(of: name)))
        return try Self.rawOpen(name, in: directory, mode.rawValue | options.rawValue | O_CLOEXEC, nil)
    }

    /// The status of `name` in `directory` itself (a symbolic link is not
    /// followed): `fstatat(2)` with `AT_SYMLINK_NOFOLLOW`, named `lstat` in messages.
    public func status(of name: String, in directory: Directory) throws(Errno) -> Status {
        try interceptor(Call(operation: .lstat, path: directory.path(of: name)))
        var status = Glibc.stat()
        try Self.retrying { Glibc.fstatat(directory.descriptor.rawValue, name, &status, AT_SYMLINK_NOFOLLOW) }
        return Self.status(status)
    }

    /// Atomically renames `source` to `destination`, both in `directory`,
    /// replacing `destination` if it exists.
    public func rename(_ source: String, to destination: String, in directory: Directory) throws(Errno) {
        try interceptor(Call(operation: .rename, path: directory.path(of: source), destination: directory.path(of: destination)))
        let descriptor = directory.descriptor.rawValue
        try Self.retrying { Glibc.renameat(descriptor, source, descriptor, destination) }
    }

    /// Makes `destination` a second name (hard link) of the file `source`,
    /// both in `directory`; a symbolic link `source` is linked, not followed.
    public func link(_ source: String, to destination: String, in directory: Directory) throws(Errno) {
        try interceptor(Call(operation: .link, path: directory.path(of: source), destination: directory.path(of: destination)))
        let descriptor = directory.descriptor.rawValue
        try Self.retrying { Glibc.linkat(descriptor, source, descriptor, destination, 0) }
    }

    /// Removes the name `name` from `directory` (not a directory: see
    /// ``removeDirectory(_:in:)``).
    public func unlink(_ name: String, in directory: Directory) throws(Errno) {
        try interceptor(Call(operation: .unlink, path: directory.path(of: name)))
        try Self.retrying { Glibc.unlinkat(directory.descriptor.rawValue, name, 0) }
    }

    /// Creates the directory `name` in `directory` with `permissions` (less the umask).
    public func makeDirectory(_ name: String, in directory: Directory, permissions: FilePermissions) throws(Errno) {
        try interceptor(Call(operation: .mkdir, path: directory.path(of: name)))
        try Self.retrying { Glibc.mkdirat(directory.descriptor.rawValue, name, permissions.rawValue) }
    }

    /// Removes the empty directory `name` from `directory`.
    public func removeDirectory(_ name: String, in directory: Directory) throws(Errno) {
        try interceptor(Call(operation: .rmdir, path: directory.path(of: name)))
        try Self.retrying { Glibc.unlinkat(directory.descriptor.rawValue, name, AT_REMOVEDIR) }
    }

    /// The names in the open `directory`, without `.` and `..`, in no
    /// particular order; read from its start, on a descriptor of its own,
    /// so `directory` stays open and usable.
    public func contents(of directory: Directory) throws(Errno) -> [String] {
        try interceptor(Call(operation: .readDirectory, path: directory.path))
        let copy = Glibc.fcntl(directory.descriptor.rawValue, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw Errno(rawValue: Glibc.errno) }
        guard let stream = Glibc.fdopendir(copy) else {
            let code = Glibc.errno
            _ = Glibc.close(copy)
            throw Errno(rawValue: code)
        }
        defer { Glibc.closedir(stream) }
        // A duplicate shares the original's offset: start from the beginning.
        Glibc.rewinddir(stream)
        return try Self.names(in: stream)
    }

    /// Creates a new, empty file in `directory` named `prefix` plus a random
    /// suffix plus `.tmp`, opened write-only, with mode 0600 whatever the
    /// umask; returns it and its name.
    public func createTemporaryFile(
        in directory: Directory,
        prefix: String
    ) throws(Errno) -> (descriptor: FileDescriptor, name: String) {
        try interceptor(Call(operation: .createTemporaryFile, path: directory.path))
        var attempts = 0
        while true {
            let name = prefix + Self.randomSuffix() + ".tmp"
            do {
                let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
                return (try Self.rawOpen(name, in: directory, flags, [.ownerReadWrite]), name)
            } catch where error == .fileExists && attempts < 100 {
                attempts += 1
            }
        }
    }

    /// Flushes the open `directory` itself, making renames and new or
    /// removed names in it durable.
    public func sync(_ directory: Directory) throws(Errno) {
        try interceptor(Call(operation: .syncDirectory, path: directory.path))
        try Self.retrying { Glibc.fsync(directory.descriptor.rawValue) }
    }

    /// Closes the open `directory`, whose calls are all made.
    public func close(_ directory: Directory) {
        // A read-only directory has nothing to flush: its close cannot lose data.
        try? close(directory.descriptor)
    }

    // MARK: - Helpers

    private static func rawOpen(
        _ name: String,
        in directory: Directory,
        _ flags: CInt,
        _ permissions: FilePermissions?
    ) throws(Errno) -> FileDescriptor {
        while true {
            let result = Glibc.openat(directory.descriptor.rawValue, name, flags, permissions?.rawValue ?? 0)
            if result >= 0 { return FileDescriptor(rawValue: result) }
            let code = Glibc.errno
            if code != EINTR { throw Errno(rawValue: code) }
        }
    }
}
