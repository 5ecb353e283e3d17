import SavedText
public import SystemPackage

/// A file the tmux plugin writes for one restored pane to read once (its
/// program's script, its text): made with `O_EXCL` and `O_NOFOLLOW`, mode
/// 0600, under a random name in a directory whose path no shell reads, so
/// that the path can be typed or put into a command as it is.
public enum PaneFile {
    /// Creates `directory/PREFIX-RANDOM` holding `contents` and returns its
    /// path; `directory` must be absolute and ``SavedText/isTypable(_:)``.
    public static func create(prefix: String, contents: String, in directory: FilePath) throws(TmuxError) -> FilePath {
        guard directory.isAbsolute, SavedText.isTypable(directory.string) else {
            throw .unsafeDirectory(directory)
        }
        let path = directory.appending("\(prefix)-\(String(UInt64.random(in: 1 ... UInt64.max), radix: 16))")
        do {
            let file = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec], permissions: [.ownerReadWrite])
            try file.closeAfter { _ = try file.writeAll(contents.utf8) }
        } catch let error as Errno {
            throw .cannotWrite(path, error)
        } catch {
            throw .cannotWrite(path, .ioError)
        }
        return path
    }
}
