import Glibc
import SystemPackage

/// One of an ``ArchiveStore``'s directories (the state directory or an
/// app's), held open for one operation of the store.
///
/// The directory is opened once with `O_DIRECTORY|O_NOFOLLOW` and checked
/// once, on its descriptor: a directory of this user (and, when prepared
/// for writing, mode 0700). Every later call goes through the descriptor
/// (`openat(2)`, `renameat(2)` and the other `*at` calls), so a path
/// swapped for a symbolic link or another user's directory between the
/// check and the use reaches nothing: the files written and read are in
/// the directory that was checked.
///
/// A directory is held only for one operation, never between them: one
/// the user removes or replaces while restored runs is opened anew by the
/// next save, so no save is written into a directory nobody can reach.
///
/// Every failure is an ``ArchiveStoreError`` naming the store's action,
/// the app and the path, as the user reads it.
final class ArchiveDirectory {
    /// What the store is doing, named in the errors of the calls made here.
    struct Context {
        /// The file system every call goes through.
        var fileSystem: FileSystem
        /// The store's operation.
        var action: ArchiveStoreError.Action
        /// The app concerned, if any.
        var appID: AppID?
        /// The store's state directory, named in the advice of errors.
        var storeDirectory: FilePath
    }

    /// The open directory and its path.
    let directory: FileSystem.Directory
    /// The operation it is held for.
    let context: Context
    /// The directory's mode when it was checked.
    private var permissions: FilePermissions?

    private init(_ directory: FileSystem.Directory, context: Context) {
        self.directory = directory
        self.context = context
    }

    deinit {
        context.fileSystem.close(directory)
    }

    /// The directory's path, for messages.
    var path: FilePath { directory.path }

    /// The path of `name` in this directory, for messages.
    func path(of name: String) -> FilePath {
        directory.path(of: name)
    }

    // MARK: - Opening

    /// Opens the directory `path` and checks it; nil when it does not exist.
    /// Throws ``ArchiveStoreError/unsafeDirectory(_:_:)`` for a symbolic
    /// link, something else than a directory, or another user's directory.
    static func open(_ path: FilePath, context: Context) throws(ArchiveStoreError) -> ArchiveDirectory? {
        let opened: FileSystem.Directory
        do {
            opened = try context.fileSystem.openDirectory(path)
        } catch {
            try refusal(of: path, opening: error, context: context) { () throws(Errno) in
                try context.fileSystem.lstat(path)
            }
            return nil
        }
        return try checked(opened, context: context)
    }

    /// Opens the directory `name` in this one and checks it, as
    /// ``open(_:context:)`` does.
    func openSubdirectory(_ name: String) throws(ArchiveStoreError) -> ArchiveDirectory? {
        let opened: FileSystem.Directory
        do {
            opened = try context.fileSystem.openDirectory(name, in: directory)
        } catch {
            try Self.refusal(of: path(of: name), opening: error, context: context) { () throws(Errno) in
                try context.fileSystem.status(of: name, in: directory)
            }
            return nil
        }
        return try Self.checked(opened, context: context)
    }

    /// Opens the directory `path` for writing: created with mode 0700 when
    /// missing (with its missing parents when `creatingParents`, each mode
    /// 0700 and made durable), refused like ``open(_:context:)``, and its
    /// mode made exactly 0700 whatever the umask.
    static func prepare(_ path: FilePath, creatingParents: Bool, context: Context) throws(ArchiveStoreError) -> ArchiveDirectory {
        if let existing = try open(path, context: context) {
            try existing.restrictPermissions()
            return existing
        }
        if creatingParents {
            try makeMissingParents(of: path, context: context)
        }
        try makeDirectory(path, context: context)
        guard let made = try open(path, context: context) else {
            // Removed again at once: the next save makes it anew.
            throw failure(.open, path, .noSuchFileOrDirectory, context: context)
        }
        try made.restrictPermissions()
        return made
    }

    /// Opens the directory `name` in this one for writing, as
    /// ``prepare(_:creatingParents:context:)`` does; a new one's name is
    /// made durable in this directory.
    func prepareSubdirectory(_ name: String) throws(ArchiveStoreError) -> ArchiveDirectory {
        if let existing = try openSubdirectory(name) {
            try existing.restrictPermissions()
            return existing
        }
        do {
            try context.fileSystem.makeDirectory(name, in: directory, permissions: .ownerReadWriteExecute)
        } catch where error == .fileExists {
            // Made by another writer meanwhile: checked below like any other.
        } catch {
            throw failure(.mkdir, name, error)
        }
        guard let made = try openSubdirectory(name) else {
            throw failure(.open, name, .noSuchFileOrDirectory)
        }
        try made.restrictPermissions()
        try sync()
        return made
    }

    /// Checks the opened directory on its descriptor: it is this user's.
    private static func checked(_ opened: FileSystem.Directory, context: Context) throws(ArchiveStoreError) -> ArchiveDirectory {
        // Made first, so its descriptor is closed whatever happens below.
        let directory = ArchiveDirectory(opened, context: context)
        let status: FileSystem.Status
        do {
            status = try context.fileSystem.fstat(opened.descriptor)
        } catch {
            throw failure(.fstat, opened.path, error, context: context)
        }
        directory.permissions = status.permissions
        guard status.kind == .directory else {
            throw .unsafeDirectory(opened.path, .notADirectory)
        }
        guard status.ownerID == context.fileSystem.effectiveUserID() else {
            throw .unsafeDirectory(opened.path, .ownedByOtherUser(status.ownerID))
        }
        return directory
    }

    /// Turns a failed open of a directory into nil (it does not exist; this
    /// returns), a refusal (a symbolic link, not a directory), or the
    /// failure of the call; `status` tells a symbolic link from a file.
    private static func refusal(
        of path: FilePath,
        opening error: Errno,
        context: Context,
        status: () throws(Errno) -> FileSystem.Status
    ) throws(ArchiveStoreError) {
        switch error {
        case .noSuchFileOrDirectory:
            return
        case .tooManySymbolicLinkLevels, .notDirectory:
            // O_NOFOLLOW and O_DIRECTORY refuse both; the name's own status
            // says which (a parent that is no directory fails here too).
            if let found = try? status() {
                switch found.kind {
                case .symbolicLink: throw .unsafeDirectory(path, .symbolicLink)
                case .regular, .other: throw .unsafeDirectory(path, .notADirectory)
                case .directory: break
                }
            }
            throw failure(.open, path, error, context: context)
        default:
            throw failure(.open, path, error, context: context)
        }
    }

    /// Makes the open directory's mode exactly 0700, whatever the umask.
    private func restrictPermissions() throws(ArchiveStoreError) {
        guard permissions != .ownerReadWriteExecute else { return }
        do {
            try context.fileSystem.fchmod(directory.descriptor, .ownerReadWriteExecute)
        } catch {
            throw Self.failure(.fchmod, path, error, context: context)
        }
        permissions = .ownerReadWriteExecute
    }

    /// Creates the missing parents of `path`, outermost first, each mode
    /// 0700 with its name made durable. They are the user's own (like
    /// `~/.local/state`), made by path: the store's directory itself is
    /// checked once it is opened.
    private static func makeMissingParents(of path: FilePath, context: Context) throws(ArchiveStoreError) {
        var missing: [FilePath] = []
        var ancestor = path.removingLastComponent()
        while !ancestor.components.isEmpty {
            do {
                _ = try context.fileSystem.lstat(ancestor)
                break
            } catch where error == .noSuchFileOrDirectory {
                missing.append(ancestor)
                ancestor = ancestor.removingLastComponent()
            } catch {
                throw failure(.lstat, ancestor, error, context: context)
            }
        }
        for parent in missing.reversed() where try makeDirectory(parent, context: context) {
            // Made here: mode 0700 whatever the umask. One another program
            // made meanwhile is left as it is.
            _ = try prepare(parent, creatingParents: false, context: context)
        }
    }

    /// Creates the directory `path` with mode 0700 (tolerating a concurrent
    /// creation) and flushes its parent so the new name is durable; returns
    /// whether it made it.
    @discardableResult
    private static func makeDirectory(_ path: FilePath, context: Context) throws(ArchiveStoreError) -> Bool {
        do {
            try context.fileSystem.mkdir(path, permissions: .ownerReadWriteExecute)
        } catch where error == .fileExists {
            return false
        } catch {
            throw failure(.mkdir, path, error, context: context)
        }
        let parent = path.removingLastComponent()
        let parentToSync = parent.isEmpty ? FilePath(".") : parent
        do {
            try context.fileSystem.syncDirectory(parentToSync)
        } catch {
            throw failure(.syncDirectory, parentToSync, error, context: context)
        }
        return true
    }

    // MARK: - Calls in the directory

    /// Opens the file `name` to read it, not following a symbolic link and
    /// not blocking on a FIFO; the caller tells its errors apart.
    func openFileForReading(_ name: String) throws(Errno) -> FileDescriptor {
        try context.fileSystem.open(name, in: directory, .readOnly, options: [.noFollow, .nonBlocking])
    }

    /// Opens the file `name` to read and write it in place, not following
    /// a symbolic link and not blocking on a FIFO; the caller tells its
    /// errors apart.
    func openFileForUpdate(_ name: String) throws(Errno) -> FileDescriptor {
        try context.fileSystem.open(name, in: directory, .readWrite, options: [.noFollow, .nonBlocking])
    }

    /// The status of `name` in the directory (a symbolic link not
    /// followed); nil when there is no such name.
    func status(of name: String) throws(ArchiveStoreError) -> FileSystem.Status? {
        do {
            return try context.fileSystem.status(of: name, in: directory)
        } catch where error == .noSuchFileOrDirectory {
            return nil
        } catch {
            throw failure(.lstat, name, error)
        }
    }

    /// The names in the directory.
    func names() throws(ArchiveStoreError) -> [String] {
        do {
            return try context.fileSystem.contents(of: directory)
        } catch {
            throw Self.failure(.readDirectory, path, error, context: context)
        }
    }

    /// Creates a new, empty file of mode 0600 named `prefix`, a random
    /// suffix and `.tmp`; returns it open for writing and its name.
    func createTemporaryFile(prefix: String) throws(ArchiveStoreError) -> (descriptor: FileDescriptor, name: String) {
        do {
            return try context.fileSystem.createTemporaryFile(in: directory, prefix: prefix)
        } catch {
            throw Self.failure(.createTemporaryFile, path, error, context: context)
        }
    }

    /// Renames `source` to `destination`, replacing it.
    func rename(_ source: String, to destination: String) throws(ArchiveStoreError) {
        do {
            try context.fileSystem.rename(source, to: destination, in: directory)
        } catch {
            throw failure(.rename, source, error, destination: destination)
        }
    }

    /// Makes `destination` a second name of `source`.
    func link(_ source: String, to destination: String) throws(ArchiveStoreError) {
        do {
            try context.fileSystem.link(source, to: destination, in: directory)
        } catch {
            throw failure(.link, source, error, destination: destination)
        }
    }

    /// Removes the name `name`; false when there was no such name.
    @discardableResult
    func unlink(_ name: String) throws(ArchiveStoreError) -> Bool {
        do {
            try context.fileSystem.unlink(name, in: directory)
            return true
        } catch where error == .noSuchFileOrDirectory {
            return false
        } catch {
            throw failure(.unlink, name, error)
        }
    }

    /// Removes the empty directory `name`.
    func removeSubdirectory(_ name: String) throws(ArchiveStoreError) {
        do {
            try context.fileSystem.removeDirectory(name, in: directory)
        } catch {
            throw failure(.rmdir, name, error)
        }
    }

    /// Flushes the directory, making its new, renamed and removed names durable.
    func sync() throws(ArchiveStoreError) {
        do {
            try context.fileSystem.sync(directory)
        } catch {
            throw Self.failure(.syncDirectory, path, error, context: context)
        }
    }

    /// Runs `body`, a call on the file `name` of this directory, turning its
    /// errno into a store error about that file.
    func perform<Value>(
        _ operation: FileSystem.Operation,
        on name: String,
        _ body: (FileSystem) throws(Errno) -> Value
    ) throws(ArchiveStoreError) -> Value {
        do {
            return try body(context.fileSystem)
        } catch {
            throw failure(operation, name, error)
        }
    }

    // MARK: - Errors

    /// The store error of a call on `name` in this directory.
    func failure(_ operation: FileSystem.Operation, _ name: String, _ errno: Errno, destination: String? = nil) -> ArchiveStoreError {
        Self.failure(operation, path(of: name), errno, destination: destination.map(path(of:)), context: context)
    }

    /// The store error of a call on `path`.
    static func failure(
        _ operation: FileSystem.Operation,
        _ path: FilePath,
        _ errno: Errno,
        destination: FilePath? = nil,
        context: Context
    ) -> ArchiveStoreError {
        .systemCall(
            ArchiveStoreError.SystemCallFailure(
                action: context.action,
                appID: context.appID,
                operation: operation,
                path: path,
                destination: destination,
                errno: errno,
                directory: context.storeDirectory
            )
        )
    }
}
