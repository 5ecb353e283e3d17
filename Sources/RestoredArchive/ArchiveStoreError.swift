public import SystemPackage

/// Why an ``ArchiveStore`` operation failed. Each description is one line
/// saying what went wrong and what to do.
public enum ArchiveStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What the store was doing when a system call failed.
    public enum Action: String, Hashable, Sendable {
        /// Writing a new generation (``ArchiveStore/write(_:)``).
        case save
        /// Replacing one generation in place (``ArchiveStore/rewrite(_:in:)``, ``ArchiveStore/update(_:_:)``).
        case update
        /// Reading (``ArchiveStore/read(_:)``).
        case read
        /// Removing (``ArchiveStore/discard(_:)``).
        case discard
        /// Listing the apps (``ArchiveStore/appIDs()``).
        case list
    }

    /// A failed system call, with everything needed to act on it.
    public struct SystemCallFailure: Hashable, Sendable, CustomStringConvertible {
        /// What the store was doing.
        public var action: Action
        /// The app concerned, if any.
        public var appID: AppID?
        /// The call that failed.
        public var operation: FileSystem.Operation
        /// The file or directory of the call.
        public var path: FilePath
        /// The new name, for `rename` and `link`.
        public var destination: FilePath?
        /// The error the system reported.
        public var errno: Errno
        /// The store's directory, named in the advice.
        public var directory: FilePath

        /// Creates a failure description.
        public init(
            action: Action,
            appID: AppID?,
            operation: FileSystem.Operation,
            path: FilePath,
            destination: FilePath? = nil,
            errno: Errno,
            directory: FilePath
        ) {
            self.action = action
            self.appID = appID
            self.operation = operation
            self.path = path
            self.destination = destination
            self.errno = errno
            self.directory = directory
        }

        /// One line: what failed, on which file, why, and what to do.
        public var description: String {
            let what: String =
                switch action {
                case .save: "cannot save the archive of \(appName)"
                case .update: "cannot update the archive of \(appName)"
                case .read: "cannot read the archive of \(appName)"
                case .discard: "cannot discard the archive of \(appName)"
                case .list: "cannot list the archives in \(directory)"
                }
            var call: String =
                switch operation {
                case .syncDirectory: "fsync of directory \(path)"
                case .createTemporaryFile: "creation of a temporary file in \(path)"
                case .readDirectory: "listing of \(path)"
                default: "\(operation) of \(path)"
                }
            if let destination { call += " to \(destination)" }
            var text = "\(what): \(call) failed: \(errno); \(advice)"
            if action == .save || action == .update {
                text += " (the archive stored before is kept)"
            }
            return text
        }

        private var appName: String { appID?.rawValue ?? "an app" }

        private var advice: String {
            switch errno {
            case .noSpace, .diskQuotaExceeded:
                "free some disk space, then try again"
            case .readOnlyFileSystem:
                "the file system is read-only: remount it read-write, then try again"
            case .permissionDenied, .notPermitted:
                "make \(directory) yours and writable (mode 0700), then try again"
            case .ioError:
                "the disk reported an I/O error: check it (journalctl -k), then try again"
            case .directoryNotEmpty:
                "remove the files that restored did not write from \(path), then try again"
            case .tooManyOpenFiles, .tooManyOpenFilesInSystem:
                "too many files are open: try again later"
            default:
                "check \(directory), then try again"
            }
        }
    }

    /// Nothing is stored for the app: it never saved, or its archive was discarded.
    case noArchive(AppID)
    /// Archive files exist for the app and none can be used (a nil problem:
    /// that file is absent).
    case noUsableArchive(AppID, current: ArchiveProblem?, previous: ArchiveProblem?)
    /// The store refuses to use a directory (given) that another user could control.
    case unsafeDirectory(FilePath, UnsafeDirectoryReason)
    /// The encoded archive (its size is given) is larger than ``ArchiveStore/maximumArchiveSize``.
    case archiveTooLarge(AppID, size: Int)
    /// A system call failed.
    case systemCall(SystemCallFailure)

    /// One line: what went wrong and what to do.
    public var description: String {
        switch self {
        case .noArchive(let appID):
            return "\(appID) has no archive: nothing was saved for it, or it was discarded"
        case .noUsableArchive(let appID, let current, let previous):
            let currentText = current?.description ?? "absent"
            let previousText = previous?.description ?? "absent"
            return "\(appID) has no usable archive (current: \(currentText); previous: \(previousText)); run `restored-ctl discard \(appID)` to start fresh"
        case .unsafeDirectory(let path, let reason):
            return "refusing to use \(path) for archives: \(reason); make it a directory of your own with mode 0700, or set XDG_STATE_HOME to another place"
        case .archiveTooLarge(let appID, let size):
            return "cannot save the archive of \(appID): it has \(size) bytes, more than the limit of \(ArchiveStore.maximumArchiveSize); the app must save less (references to data, not the data itself)"
        case .systemCall(let failure):
            return failure.description
        }
    }
}
