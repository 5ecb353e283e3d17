public import SystemPackage
import Glibc
import Synchronization

/// The one gateway through which every system call of `RestoredArchive` goes.
///
/// `FileSystem.live` performs the real calls. Tests make a file system that
/// fails on purpose with ``failing(_:with:after:times:)``, or watch and steer each
/// call with ``intercepting(_:)``, while every call that is let through still
/// touches real files. Calls are retried on `EINTR`; writes loop over partial
/// writes; descriptors are opened close-on-exec. Calls on the names in a
/// directory are made relative to it, held open (``Directory``).
public struct FileSystem: Sendable {
    /// A kind of call, as named in error messages and used to inject failures.
    public enum Operation: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// `open(2)` of a file or directory.
        case open
        /// Reading a whole file (`read(2)` until end of file).
        case read
        /// Writing a whole buffer (`write(2)`, or `pwrite(2)` at an offset,
        /// until all is written).
        case write
        /// `fsync(2)` of a file.
        case fsync
        /// `fdatasync(2)` of a file: its data and size, not its times.
        case fdatasync
        /// `fchmod(2)`.
        case fchmod
        /// `close(2)`.
        case close
        /// `renameat(2)` of a name in an open directory.
        case rename
        /// `linkat(2)`: a second name for a file, in an open directory.
        case link
        /// `unlinkat(2)` of a name in an open directory.
        case unlink
        /// `mkdir(2)`, or `mkdirat(2)` in an open directory.
        case mkdir
        /// `unlinkat(2)` of an empty directory (`AT_REMOVEDIR`).
        case rmdir
        /// `lstat(2)`, or `fstatat(2)` with `AT_SYMLINK_NOFOLLOW`: the status of
        /// a name, not following a final symbolic link.
        case lstat
        /// `fstat(2)`: the status of an open file.
        case fstat
        /// Listing a directory (`opendir(3)` or `fdopendir(3)`, `readdir(3)`).
        case readDirectory
        /// Creating a new temporary file (`openat(2)` with `O_CREAT|O_EXCL`, mode 0600).
        case createTemporaryFile
        /// `fsync(2)` of a directory, which makes renames and new names in it durable.
        case syncDirectory

        /// The operation as a short phrase for messages, like `directory fsync`.
        public var description: String {
            switch self {
            case .open: "open"
            case .read: "read"
            case .write: "write"
            case .fsync: "fsync"
            case .fdatasync: "fdatasync"
            case .fchmod: "chmod"
            case .close: "close"
            case .rename: "rename"
            case .link: "link"
            case .unlink: "unlink"
            case .mkdir: "mkdir"
            case .rmdir: "rmdir"
            case .lstat: "lstat"
            case .fstat: "fstat"
            case .readDirectory: "directory listing"
            case .createTemporaryFile: "temporary file creation"
            case .syncDirectory: "directory fsync"
            }
        }
    }

    /// One call about to be made, as seen by an interceptor.
    public struct Call: Hashable, Sendable, CustomStringConvertible {
        /// The kind of call.
        public var operation: Operation
        /// The path the call is about, or nil for calls on an open descriptor.
        public var path: FilePath?
        /// The second path of a `rename` or `link` (the new name).
        public var destination: FilePath?

        /// Creates a description of a call.
        public init(operation: Operation, path: FilePath? = nil, destination: FilePath? = nil) {
            self.operation = operation
            self.path = path
            self.destination = destination
        }

        /// The call in one line, like `rename /a -> /b`.
        public var description: String {
            var text = operation.rawValue
            if let path { text += " \(path)" }
            if let destination { text += " -> \(destination)" }
            return text
        }
    }

    /// What `lstat` or `fstat` reports about a file.
    public struct Status: Hashable, Sendable {
        /// The type of a file.
        public enum Kind: Hashable, Sendable {
            /// A regular file.
            case regular
            /// A directory.
            case directory
            /// A symbolic link (only `lstat` reports it).
            case symbolicLink
            /// Anything else: device, FIFO, socket.
            case other
        }

        /// The file's type.
        public var kind: Kind
        /// The permission bits (mode & 07777).
        public var permissions: FilePermissions
        /// The owner's user id.
        public var ownerID: UInt32
        /// The size in bytes.
        public var size: Int64
        /// The number of names the file has (its hard links).
        public var linkCount: Int

        /// Creates a status.
        public init(kind: Kind, permissions: FilePermissions, ownerID: UInt32, size: Int64, linkCount: Int = 1) {
            self.kind = kind
            self.permissions = permissions
            self.ownerID = ownerID
            self.size = size
            self.linkCount = linkCount
        }
    }

    /// Called before every call; throwing makes the call fail with that errno
    /// without reaching the system (for `close`, after the real close).
    let interceptor: @Sendable (Call) throws(Errno) -> Void

    private init(interceptor: @escaping @Sendable (Call) throws(Errno) -> Void) {
        self.interceptor = interceptor
    }

    /// The real file system.
    public static let live = FileSystem(interceptor: { _ in })

    /// A file system that shows every call to `handler` before making it.
    ///
    /// When `handler` throws, the call fails with that errno and does not
    /// happen (a `close` still closes the descriptor, as `close(2)` does).
    /// Handlers of earlier `intercepting` and `failing` calls run first.
    public func intercepting(_ handler: @escaping @Sendable (Call) throws(Errno) -> Void) -> FileSystem {
        let previous = interceptor
        return FileSystem { call throws(Errno) in
            try previous(call)
            try handler(call)
        }
    }

    /// A file system on which calls of `operation` fail with `errno`, for
    /// fault-injection tests: the first `count` calls succeed, the next
    /// `times` calls fail, the later ones succeed again.
    ///
    /// `failing(.fsync, with: .noSpace)` fails the first fsync;
    /// `failing(.rename, with: .ioError, after: 1)` fails the second rename;
    /// `failing(.write, with: .noSpace, times: .max)` fails every write.
    public func failing(
        _ operation: Operation,
        with errno: Errno,
        after count: Int = 0,
        times: Int = 1
    ) -> FileSystem {
        let counter = CallCounter()
        return intercepting { call throws(Errno) in
            guard call.operation == operation else { return }
            let number = counter.next()
            if number > count && number - count <= times {
                throw errno
            }
        }
    }

    // MARK: - Calls

    /// Opens `path` with `mode` and `options` (close-on-exec is always added);
    /// `permissions` is the mode of a file that `options` create.
    public func open(
        _ path: FilePath,
        _ mode: FileDescriptor.AccessMode,
        options: FileDescriptor.OpenOptions = [],
        permissions: FilePermissions? = nil
    ) throws(Errno) -> FileDescriptor {
        try interceptor(Call(operation: .open, path: path))
        return try Self.rawOpen(path, mode.rawValue | options.rawValue | O_CLOEXEC, permissions)
    }

    /// Reads the whole file behind `descriptor`, from its current offset to its end.
    public func readAll(_ descriptor: FileDescriptor) throws(Errno) -> [UInt8] {
        try interceptor(Call(operation: .read))
        var status = Glibc.stat()
        try Self.retrying { Glibc.fstat(descriptor.rawValue, &status) }
        // One byte more than the size, to see the end of file in the same pass.
        var capacity = max(Int(clamping: status.st_size), 0) &+ 1
        var bytes: [UInt8] = []
        while true {
            var failure: Errno?
            let chunk = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                count = 0
                while count < buffer.count, let base = buffer.baseAddress {
                    let result = Glibc.read(descriptor.rawValue, base + count, buffer.count - count)
                    if result > 0 {
                        count += result
                    } else if result == 0 {
                        break
                    } else {
                        let code = Glibc.errno
                        if code == EINTR { continue }
                        failure = Errno(rawValue: code)
                        break
                    }
                }
            }
            if let failure { throw failure }
            if bytes.isEmpty {
                bytes = chunk
            } else {
                bytes.append(contentsOf: chunk)
            }
            // A chunk that was not filled ended at the end of the file.
            if chunk.count < capacity { return bytes }
            capacity = max(capacity, 65536)
        }
    }

    /// Writes all of `bytes` to `descriptor`, looping over partial writes.
    public func writeAll(_ bytes: [UInt8], to descriptor: FileDescriptor) throws(Errno) {
        try interceptor(Call(operation: .write))
        try Self.writeFully(bytes) { start, count, _ in Glibc.write(descriptor.rawValue, start, count) }
    }

    /// Writes all of `bytes` to `descriptor` at `offset` (`pwrite(2)`,
    /// looping over partial writes), leaving the descriptor's offset as it is.
    public func writeAll(_ bytes: [UInt8], to descriptor: FileDescriptor, atOffset offset: Int64) throws(Errno) {
        try interceptor(Call(operation: .write))
        try Self.writeFully(bytes) { start, count, written in
            Glibc.pwrite(descriptor.rawValue, start, count, off_t(offset) + off_t(written))
        }
    }

    /// Calls `write` with what is left of `bytes` (its start, its length
    /// and how much is written) until all is written, retrying on `EINTR`.
    private static func writeFully(_ bytes: [UInt8], _ write: (UnsafeRawPointer, Int, Int) -> Int) throws(Errno) {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in write(buffer.baseAddress! + written, buffer.count - written, written) }
            if result < 0 {
                let code = Glibc.errno
                if code == EINTR { continue }
                throw Errno(rawValue: code)
            }
            if result == 0 {
                throw Errno.ioError
            }
            written += result
        }
    }

    /// Flushes the data of the file behind `descriptor` (and its size, where
    /// it changed) to stable storage, not its times: all a file rewritten
    /// in place needs.
    public func fdatasync(_ descriptor: FileDescriptor) throws(Errno) {
        try interceptor(Call(operation: .fdatasync))
        try Self.retrying { Glibc.fdatasync(descriptor.rawValue) }
    }

    /// Flushes the file behind `descriptor` to stable storage.
    public func fsync(_ descriptor: FileDescriptor) throws(Errno) {
        try interceptor(Call(operation: .fsync))
        try Self.retrying { Glibc.fsync(descriptor.rawValue) }
    }

    /// Sets the permission bits of the file behind `descriptor`, whatever the umask.
    public func fchmod(_ descriptor: FileDescriptor, _ permissions: FilePermissions) throws(Errno) {
        try interceptor(Call(operation: .fchmod))
        try Self.retrying { Glibc.fchmod(descriptor.rawValue, permissions.rawValue) }
    }

    /// Closes `descriptor`. It is closed even when this throws.
    public func close(_ descriptor: FileDescriptor) throws(Errno) {
        // close(2) is never retried: on Linux the descriptor is gone even on EINTR.
        let result = Glibc.close(descriptor.rawValue)
        let code = Glibc.errno
        try interceptor(Call(operation: .close))
        if result != 0 && code != EINTR {
            throw Errno(rawValue: code)
        }
    }

    /// Creates the directory `path` with `permissions` (less the umask).
    public func mkdir(_ path: FilePath, permissions: FilePermissions) throws(Errno) {
        try interceptor(Call(operation: .mkdir, path: path))
        try Self.retrying { path.withPlatformString { Glibc.mkdir($0, permissions.rawValue) } }
    }

    /// The status of `path` itself (a final symbolic link is not followed).
    public func lstat(_ path: FilePath) throws(Errno) -> Status {
        try interceptor(Call(operation: .lstat, path: path))
        var status = Glibc.stat()
        try Self.retrying { path.withPlatformString { Glibc.lstat($0, &status) } }
        return Self.status(status)
    }

    /// The status of the file behind `descriptor`.
    public func fstat(_ descriptor: FileDescriptor) throws(Errno) -> Status {
        try interceptor(Call(operation: .fstat))
        var status = Glibc.stat()
        try Self.retrying { Glibc.fstat(descriptor.rawValue, &status) }
        return Self.status(status)
    }

    /// The names in the directory `path`, without `.` and `..`, in no particular order.
    public func contentsOfDirectory(_ path: FilePath) throws(Errno) -> [String] {
        try interceptor(Call(operation: .readDirectory, path: path))
        var handle: OpaquePointer?
        while true {
            handle = path.withPlatformString { Glibc.opendir($0) }
            if handle != nil { break }
            let code = Glibc.errno
            if code != EINTR { throw Errno(rawValue: code) }
        }
        guard let directory = handle else { throw Errno.ioError }
        defer { Glibc.closedir(directory) }
        return try Self.names(in: directory)
    }

    /// The names `stream` lists from where it stands, without `.` and `..`.
    static func names(in stream: OpaquePointer) throws(Errno) -> [String] {
        var names: [String] = []
        while true {
            Glibc.errno = 0
            guard let entry = Glibc.readdir(stream) else {
                let code = Glibc.errno
                if code == 0 { break }
                if code == EINTR { continue }
                throw Errno(rawValue: code)
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                let bytes = raw.prefix { $0 != 0 }
                return String(decoding: bytes, as: UTF8.self)
            }
            if name != "." && name != ".." {
                names.append(name)
            }
        }
        return names
    }

    /// Flushes the directory `path` itself, making renames and new or removed
    /// names in it durable (open `O_RDONLY|O_DIRECTORY`, fsync, close).
    public func syncDirectory(_ path: FilePath) throws(Errno) {
        try interceptor(Call(operation: .syncDirectory, path: path))
        let descriptor = try Self.rawOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, nil)
        do {
            try Self.retrying { Glibc.fsync(descriptor.rawValue) }
        } catch {
            _ = Glibc.close(descriptor.rawValue)
            throw error
        }
        if Glibc.close(descriptor.rawValue) != 0 {
            let code = Glibc.errno
            if code != EINTR { throw Errno(rawValue: code) }
        }
    }

    /// The effective user id of this process.
    public func effectiveUserID() -> UInt32 {
        Glibc.geteuid()
    }

    // MARK: - Helpers

    static func rawOpen(
        _ path: FilePath,
        _ flags: CInt,
        _ permissions: FilePermissions?
    ) throws(Errno) -> FileDescriptor {
        while true {
            let result = path.withPlatformString { Glibc.open($0, flags, permissions?.rawValue ?? 0) }
            if result >= 0 { return FileDescriptor(rawValue: result) }
            let code = Glibc.errno
            if code != EINTR { throw Errno(rawValue: code) }
        }
    }

    /// Runs `call` until it does not fail with EINTR; a -1 result throws errno.
    static func retrying(_ call: () -> CInt) throws(Errno) {
        while true {
            if call() == 0 { return }
            let code = Glibc.errno
            if code != EINTR { throw Errno(rawValue: code) }
        }
    }

    static func status(_ raw: Glibc.stat) -> Status {
        let kind: Status.Kind =
            switch raw.st_mode & 0o170000 {
            case 0o100000: .regular
            case 0o040000: .directory
            case 0o120000: .symbolicLink
            default: .other
            }
        return Status(
            kind: kind,
            permissions: FilePermissions(rawValue: raw.st_mode & 0o7777),
            ownerID: raw.st_uid,
            size: Int64(raw.st_size),
            linkCount: Int(raw.st_nlink)
        )
    }

    /// 16 random hexadecimal digits, for names of temporary files.
    static func randomSuffix() -> String {
        let value = UInt64.random(in: .min ... .max)
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// A thread-safe count of calls, for ``FileSystem/failing(_:with:after:times:)``.
private final class CallCounter: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts one call and returns the new total (1 for the first call).
    func next() -> Int {
        count.add(1, ordering: .relaxed).newValue
    }
}
