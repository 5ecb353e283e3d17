import FoundationEssentials
import SavedText
import SystemSupport
public import SystemPackage

/// A file a plugin writes for one restored tmux pane or terminal window to
/// read once (its program's script, a pane's text, which may hold
/// secrets): created with its
/// mode in the one `open` (`O_CREAT | O_EXCL | O_NOFOLLOW`, 0600), so no
/// other user ever may read it, under a random name in a directory whose
/// path no shell reads, so that the path can be typed or put into a
/// command as it is. A file that cannot be written whole is removed.
public enum OneUseFile {
    /// Where such files go for `environment`: `$XDG_RUNTIME_DIR`, which
    /// only the user can enter and which goes with their session; nil
    /// without one, or when its path holds a character a shell would read
    /// (the path is typed, or put into a command, as it is).
    public static func directory(environment: [String: String]) -> FilePath? {
        guard let runtime = XDGBaseDirectories(environment: environment).runtimeDirectory else { return nil }
        let path = FilePath(runtime).lexicallyNormalized()
        return path.isAbsolute && SavedText.isTypable(path.string) ? path : nil
    }

    /// Creates `directory/PREFIX-RANDOM` holding `contents` and returns its
    /// path; `directory` must be absolute and ``SavedText/isTypable(_:)``.
    public static func create(prefix: String, contents: String, in directory: FilePath) throws(OneUseFileError) -> FilePath {
        guard directory.isAbsolute, SavedText.isTypable(directory.string) else {
            throw .unsafeDirectory(directory)
        }
        let path = directory.appending("\(prefix)-\(String(UInt64.random(in: 1 ... UInt64.max), radix: 16))")
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec], permissions: [.ownerReadWrite])
        } catch let error as Errno {
            throw .cannotWrite(path, error)
        } catch {
            throw .cannotWrite(path, .ioError)
        }
        do {
            try file.closeAfter { _ = try file.writeAll(contents.utf8) }
        } catch {
            // Created, not written whole (a full disk): nothing half-written stays.
            _ = try? FileManager.default.removeItem(atPath: path.string)
            throw .cannotWrite(path, (error as? Errno) ?? .ioError)
        }
        return path
    }
}
