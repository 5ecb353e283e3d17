// A directory a test creates with mkdtemp(3) and removes when done.

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under `$TMPDIR` (or /tmp), removed with everything in it
/// by ``remove()``; use ``withTemporaryDirectory(_:)`` so that always happens.
struct TemporaryDirectory {
    /// The directory's absolute path.
    let path: String

    /// Creates the directory, mode 0700.
    init() throws {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(base)/restored-systemd-tests.XXXXXX".utf8CString)
        guard let created = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw TestFailure("mkdtemp in \(base) failed: \(String(cString: strerror(errno)))")
        }
        path = String(cString: created)
    }

    /// The path of `name` inside the directory.
    func appending(_ name: String) -> String { "\(path)/\(name)" }

    /// Removes the directory and its contents.
    func remove() throws {
        try FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a new temporary directory, then removes it, whether `body` throws or not.
func withTemporaryDirectory<Result>(_ body: (TemporaryDirectory) async throws -> Result) async throws -> Result {
    let directory = try TemporaryDirectory()
    do {
        let result = try await body(directory)
        try directory.remove()
        return result
    } catch {
        try? directory.remove()
        throw error
    }
}

/// A failed test precondition, with a message saying what went wrong.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
