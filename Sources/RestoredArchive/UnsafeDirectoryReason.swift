/// Why ``ArchiveStore`` refuses to use a directory: it would let another user
/// read or plant archives.
public enum UnsafeDirectoryReason: Hashable, Sendable, CustomStringConvertible {
    /// The path is a symbolic link.
    case symbolicLink
    /// The path exists and is not a directory.
    case notADirectory
    /// The directory belongs to another user (whose id is given), not to this process's user.
    case ownedByOtherUser(UInt32)

    /// The reason as a phrase, like `it is a symbolic link`.
    public var description: String {
        switch self {
        case .symbolicLink: "it is a symbolic link"
        case .notADirectory: "it is not a directory"
        case .ownedByOtherUser(let owner): "it is owned by user \(owner), not by you"
        }
    }
}
