public import SystemPackage

/// Why a one-use file (``OneUseFile``, ``ProgramScript``) was not written,
/// with its cause.
public enum OneUseFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No runtime directory (`XDG_RUNTIME_DIR`) of plain characters to hold it.
    case noRuntimeDirectory
    /// The directory's path holds characters a shell would read.
    case unsafeDirectory(FilePath)
    /// The file could not be written.
    case cannotWrite(FilePath, Errno)
    /// A program has no command line to start, or one with a NUL byte.
    case invalidCommandLine

    /// One line: what happened.
    public var description: String {
        switch self {
        case .noRuntimeDirectory: "no runtime directory of plain characters (XDG_RUNTIME_DIR) to hold it"
        case .unsafeDirectory(let directory): "\(directory) holds characters a shell would read; no one-use file is written there"
        case .cannotWrite(let path, let errno): "cannot write \(path): \(errno)"
        case .invalidCommandLine: "no command line to start, or one holding a NUL byte"
        }
    }
}
