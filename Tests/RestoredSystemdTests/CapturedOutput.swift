// A file descriptor a log handler writes to, and what was written.

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A temporary file opened for appending, standing in for standard error.
/// ``close()`` closes the descriptor and removes the file.
final class CapturedOutput: @unchecked Sendable {
    /// The descriptor to give a log handler.
    private(set) var descriptor: Int32
    private let directory: TemporaryDirectory
    private let path: String

    init() throws {
        directory = try TemporaryDirectory()
        path = directory.appending("stderr")
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let message = String(cString: strerror(errno))
            try? directory.remove()
            throw TestFailure("open \(path): \(message)")
        }
    }

    deinit { close() }

    /// Everything written so far.
    func text() throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    /// Everything written so far, split after each newline (the newline kept).
    func lines() throws -> [String] {
        try text().split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { "\($0)\n" }
    }

    /// Closes the descriptor and removes the file.
    func close() {
        if descriptor >= 0 {
            _ = Glibc.close(descriptor)
            descriptor = -1
            try? directory.remove()
        }
    }
}
