import Foundation
import SystemPackage

/// A fresh directory under the system's temporary directory, removed with
/// everything in it when the test is done.
struct TemporaryDirectory: ~Copyable {
    let path: FilePath

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/restored-archive-tests.XXXXXX").utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!)
        }
        guard let created else { throw Errno(rawValue: errno) }
        path = FilePath(String(cString: created))
    }

    deinit {
        // Undo what a test may have done (read-only modes, other owners) before removing.
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: path.string)
        try? FileManager.default.removeItem(atPath: path.string)
    }
}

/// Helpers on real files for the store tests.
enum Files {
    static func bytes(at path: FilePath) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path.string)))
    }

    static func write(_ bytes: [UInt8], to path: FilePath) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path.string))
    }

    static func exists(_ path: FilePath) -> Bool {
        var status = stat()
        return lstat(path.string, &status) == 0
    }

    /// The permission bits of `path` (not following a symbolic link).
    static func mode(of path: FilePath) -> mode_t {
        var status = stat()
        guard lstat(path.string, &status) == 0 else { return 0 }
        return status.st_mode & 0o7777
    }

    /// The names in `directory`, sorted.
    static func names(in directory: FilePath) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.string)) ?? []).sorted()
    }

    /// Every file in `directory` with its bytes: a picture to compare before and after.
    static func contents(of directory: FilePath) throws -> [String: [UInt8]] {
        var result: [String: [UInt8]] = [:]
        for name in names(in: directory) {
            result[name] = try bytes(at: directory.appending(name))
        }
        return result
    }
}
