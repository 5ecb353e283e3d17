public import SystemPackage

/// Why one archive file could not be used: a file that is missing is not a
/// problem, one that is there and unusable is.
public struct ArchiveProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the file.
    public enum Reason: Hashable, Sendable {
        /// The bytes are not a valid archive.
        case corrupt(ArchiveError)
        /// A system call on the file failed.
        case unreadable(FileSystem.Operation, Errno)
        /// The path is not a regular file (a directory, FIFO, device ...).
        case notARegularFile
        /// The file is larger than ``ArchiveStore/maximumArchiveSize`` (its size is given).
        case tooLarge(Int64)
        /// The archive belongs to another app (the one given).
        case otherApp(AppID)
        /// The directory holding the file is unsafe to use.
        case unsafeDirectory(UnsafeDirectoryReason)
    }

    /// The file (or directory) with the problem.
    public var file: FilePath
    /// What is wrong with it.
    public var reason: Reason

    /// Creates a problem.
    public init(file: FilePath, reason: Reason) {
        self.file = file
        self.reason = reason
    }

    /// The file and what is wrong with it, in one line.
    public var description: String {
        let text: String =
            switch reason {
            case .corrupt(let error):
                error.description
            case .unreadable(let operation, let errno):
                "\(operation) failed: \(errno)"
            case .notARegularFile:
                "not a regular file"
            case .tooLarge(let size):
                "too large to be an archive (\(size) bytes, the limit is \(ArchiveStore.maximumArchiveSize))"
            case .otherApp(let other):
                "the archive belongs to another app, \(other)"
            case .unsafeDirectory(let reason):
                "refused: \(reason)"
            }
        return "\(file): \(text)"
    }
}
