import Foundation

/// A fresh directory (mode 0700, made with mkdtemp(3) under `$TMPDIR` or
/// `/tmp`), removed with everything in it when the value goes: a test holds
/// it for as long as it needs it.
public final class TemporaryTestDirectory {
    /// The directory's absolute path, of characters no shell reads.
    public let path: String

    /// Creates the directory.
    public init() throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/restored-test.XXXXXX".utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "mkdtemp in \(base): \(String(cString: strerror(errno)))"])
        }
        path = String(cString: created)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
