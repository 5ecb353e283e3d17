// JournalStream: JOURNAL_STREAM parsing and comparison with fstat(2), without a journal.

import Foundation
import RestoredSystemd
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("JournalStream")
struct JournalStreamTests {
    @Test("JOURNAL_STREAM is <device>:<inode> in decimal")
    func parsing() {
        #expect(JournalStream(environmentValue: "8:123456") == JournalStream(device: 8, inode: 123456))
        #expect(
            JournalStream(environmentValue: "18446744073709551615:0")
                == JournalStream(device: .max, inode: 0)
        )
        for malformed in ["", ":", "8:", ":5", "8", "8:5:1", "a:5", "8:5 ", " 8:5", "-8:5", "+8:5", "0x8:5", "8:99999999999999999999"] {
            #expect(JournalStream(environmentValue: malformed) == nil, "JOURNAL_STREAM=\(malformed)")
        }
    }

    @Test("a descriptor matches the JOURNAL_STREAM naming its device and inode, and nothing else")
    func matching() async throws {
        try await withTemporaryDirectory { directory in
            let first = open(directory.appending("first"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            let second = open(directory.appending("second"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            defer {
                if first >= 0 { close(first) }
                if second >= 0 { close(second) }
            }
            try #require(first >= 0 && second >= 0)
            var status = stat()
            try #require(fstat(first, &status) == 0)
            let value = "\(status.st_dev):\(status.st_ino)"

            #expect(JournalStream(fileDescriptor: first) == JournalStream(environmentValue: value))
            #expect(JournalStream.isConnected(fileDescriptor: first, environment: ["JOURNAL_STREAM": value]))
            #expect(!JournalStream.isConnected(fileDescriptor: second, environment: ["JOURNAL_STREAM": value]))
            #expect(!JournalStream.isConnected(fileDescriptor: first, environment: [:]))
            #expect(!JournalStream.isConnected(fileDescriptor: first, environment: ["JOURNAL_STREAM": "garbage"]))
            #expect(
                !JournalStream.isConnected(
                    fileDescriptor: first, environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino + 1)"]
                )
            )
            #expect(
                SystemdLogHandler.Destination.automatic(environment: ["JOURNAL_STREAM": value]) == .standardError,
                "the test's stderr is not the temporary file"
            )
        }
    }

    @Test("a descriptor that is not open is never the journal")
    func closedDescriptor() async throws {
        try await withTemporaryDirectory { directory in
            let descriptor = open(directory.appending("file"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            try #require(descriptor >= 0)
            var status = stat()
            let statted = fstat(descriptor, &status)
            close(descriptor)
            try #require(statted == 0)
            // -1, not the closed number: tests run in parallel and another one
            // may be given that number at once.
            #expect(JournalStream(fileDescriptor: -1) == nil)
            #expect(
                !JournalStream.isConnected(
                    fileDescriptor: -1, environment: ["JOURNAL_STREAM": "\(status.st_dev):\(status.st_ino)"]
                )
            )
        }
    }
}
