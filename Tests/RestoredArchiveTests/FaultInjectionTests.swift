import Foundation
import RestoredArchive
import RestoredState
import Synchronization
import SystemPackage
import Testing

/// Writes that fail at a chosen system call, on real files: nothing may be
/// half-written, no temporary file may stay behind, and the archive stored
/// before must read back intact.
@Suite("Fault injection")
struct FaultInjectionTests {
    /// A store with two generations written, and a picture of its files.
    final class Setup {
        let temporary: TemporaryDirectory
        let store: ArchiveStore
        let first: Archive
        let second: Archive
        let before: [String: [UInt8]]

        init() throws {
            temporary = try TemporaryDirectory()
            store = ArchiveStore(directory: temporary.path)
            first = try store.write(Samples.small(note: "first"))
            second = try store.write(Samples.small(note: "second"))
            before = try Files.contents(of: store.appDirectory(for: Samples.notes))
        }

        var appDirectory: FilePath { store.appDirectory(for: Samples.notes) }

        func failing(_ operation: FileSystem.Operation, with errno: Errno, after count: Int = 0, times: Int = 1) -> ArchiveStore {
            ArchiveStore(directory: store.directory, fileSystem: .live.failing(operation, with: errno, after: count, times: times))
        }

        /// Checks that the files are exactly as before and read back as the second archive.
        func expectUnchanged(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try Files.contents(of: appDirectory) == before, comment, sourceLocation: sourceLocation)
            let reading = try store.read(Samples.notes)
            #expect(reading.archive == second, comment, sourceLocation: sourceLocation)
            #expect(reading.source == .current, comment, sourceLocation: sourceLocation)
        }
    }

    @Test("a failed fsync of the temporary file (ENOSPC) leaves the stored archive intact")
    func fsyncFails() throws {
        let setup = try Setup()
        let store = setup.failing(.fsync, with: .noSpace, times: .max)
        let error = #expect(throws: ArchiveStoreError.self) { try store.write(Samples.small(note: "third")) }
        guard case .systemCall(let failure)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(failure.operation == .fsync)
        #expect(failure.errno == .noSpace)
        #expect(failure.appID == Samples.notes)
        #expect(failure.path.removingLastComponent() == setup.appDirectory)
        let text = failure.description
        #expect(text.hasPrefix("cannot save the archive of org.example.Notes: fsync of \(setup.appDirectory)/.archive."), "\(text)")
        #expect(text.contains("No space left on device"), "\(text)")
        #expect(text.contains("free some disk space"), "\(text)")
        #expect(!text.contains("\n"))
        try setup.expectUnchanged()
    }

    @Test("a failed rename (EIO) leaves the stored archive intact", arguments: [0, 1])
    func renameFails(after count: Int) throws {
        let setup = try Setup()
        let store = setup.failing(.rename, with: .ioError, after: count)
        let error = #expect(throws: ArchiveStoreError.self) { try store.write(Samples.small(note: "third")) }
        guard case .systemCall(let failure)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(failure.operation == .rename)
        #expect(failure.description.contains("rename of "), "\(failure)")
        #expect(failure.description.contains("Input/output error"), "\(failure)")
        #expect(failure.description.contains("check it"), "\(failure)")
        try setup.expectUnchanged()
    }

    @Test("a failed fsync of the directory leaves the stored archive intact", arguments: [Errno.noSpace, .ioError])
    func directoryFsyncFails(errno: Errno) throws {
        let setup = try Setup()
        let store = setup.failing(.syncDirectory, with: errno)
        let error = #expect(throws: ArchiveStoreError.self) { try store.write(Samples.small(note: "third")) }
        guard case .systemCall(let failure)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(failure.operation == .syncDirectory)
        #expect(failure.description.contains("fsync of directory \(setup.appDirectory) failed"), "\(failure)")
        try setup.expectUnchanged()
    }

    @Test("a rewrite that fails at any step leaves the current file as it was", arguments: [
        FileSystem.Operation.createTemporaryFile, .write, .fsync, .link, .rename, .syncDirectory,
    ])
    func rewriteFails(operation: FileSystem.Operation) throws {
        let setup = try Setup()
        var changed = setup.second
        changed.restoreAttempts += 1
        let store = setup.failing(operation, with: .ioError)
        #expect(throws: ArchiveStoreError.self) { try store.rewrite(changed) }
        try setup.expectUnchanged("\(operation)")
    }

    /// Writes `archive` with one system call failing, for every call a
    /// write makes and its first eight uses: each write either completes
    /// (then `completed` checks the files) or leaves every file as it was.
    /// Returns how many failed.
    static func writeFailingOnceAtEveryCall(_ archive: Archive, completed: (Setup, Archive, String) throws -> Void) throws -> Int {
        var failures = 0
        for operation in FileSystem.Operation.allCases where operation != .unlink {
            for count in 0..<8 {
                let setup = try Setup()
                let store = setup.failing(operation, with: .ioError, after: count)
                let written: Archive
                do {
                    written = try store.write(archive)
                } catch {
                    failures += 1
                    #expect(!error.description.contains("\n"))
                    try setup.expectUnchanged("\(operation) after \(count): \(error)")
                    continue
                }
                // The failure hit a call whose failure is harmless (or none).
                #expect(try setup.store.read(Samples.notes).archive == written, "\(operation) after \(count)")
                try completed(setup, written, "\(operation) after \(count)")
            }
        }
        return failures
    }

    @Test("a write failing once at any call is either complete or leaves every file as it was")
    func everyStep() throws {
        let failures = try Self.writeFailingOnceAtEveryCall(Samples.small(note: "third")) { setup, written, comment in
            #expect(written.generation == 3)
            #expect(Files.names(in: setup.appDirectory) == ["archive", "archive.previous"], "\(comment)")
        }
        #expect(failures >= 10)
    }

    @Test("a partial write failing once at any call either completes with the complete archive pinned, or leaves every file as it was")
    func everyStepOfAPartialWrite() throws {
        var partial = Samples.small(note: "third")
        partial.droppedObjects = [OmittedObject(path: ObjectPath(identifiers: "Editor"), reason: "over its budget (R13)")]
        let failures = try Self.writeFailingOnceAtEveryCall(partial) { setup, _, comment throws in
            #expect(try setup.store.read(Samples.notes, generation: .lastComplete).archive == setup.second, "\(comment)")
            #expect(Files.names(in: setup.appDirectory) == ["archive", "archive.complete", "archive.previous"], "\(comment)")
        }
        #expect(failures >= 10)
    }

    @Test("durability order: data is flushed before the rename, the directory after it")
    func callOrder() throws {
        let setup = try Setup()
        let calls = Mutex<[FileSystem.Call]>([])
        let recording = FileSystem.live.intercepting { call in
            calls.withLock { $0.append(call) }
        }
        let store = ArchiveStore(directory: setup.store.directory, fileSystem: recording)
        try store.write(Samples.small(note: "third"))
        let log = calls.withLock { $0 }
        let current = setup.store.file(for: Samples.notes, generation: .current)
        guard let create = log.firstIndex(where: { $0.operation == .createTemporaryFile }),
            let write = log.firstIndex(where: { $0.operation == .write }),
            let fsync = log.firstIndex(where: { $0.operation == .fsync }),
            let install = log.firstIndex(where: { $0.operation == .rename && $0.destination == current }),
            let syncDirectory = log.lastIndex(where: { $0.operation == .syncDirectory && $0.path == setup.appDirectory })
        else {
            Issue.record("missing calls in \(log)")
            return
        }
        #expect(create < write && write < fsync && fsync < install && install < syncDirectory, "\(log)")
        #expect(log[create].path == setup.appDirectory)
        #expect(log[install].path?.lastComponent?.string.hasPrefix(".archive.") == true)
    }

    @Test("an unreadable current file (EIO) is never replaced by a write")
    func unreadableCurrent() throws {
        let setup = try Setup()
        let store = setup.failing(.read, with: .ioError)
        let error = #expect(throws: ArchiveStoreError.self) { try store.write(Samples.small(note: "third")) }
        guard case .systemCall(let failure)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(failure.operation == .read)
        try setup.expectUnchanged()
    }

    @Test("R15: the record of attempts is rewritten in place, one write and one fdatasync of its file; a failed one is one line naming the file and the call, and the count reads as before it or as written", arguments: [FileSystem.Operation.write, .fdatasync])
    func attemptRecordRewrittenInPlace(failing operation: FileSystem.Operation) throws {
        let setup = try Setup()
        // The samples' header counts 1, which no count below rewrites.
        let reading = try setup.store.readEncoded(Samples.notes)
        try setup.store.setRestoreAttempts(2, for: reading)
        let record = setup.appDirectory.appending(RestoreAttemptRecord.fileName)

        let calls = Mutex<[FileSystem.Call]>([])
        let logging = ArchiveStore(directory: setup.store.directory, fileSystem: .live.intercepting { call in calls.withLock { $0.append(call) } })
        try logging.setRestoreAttempts(3, for: reading)
        let log = calls.withLock { $0 }
        #expect(log.filter { $0.operation == .write }.count == 1, "\(log)")
        #expect(log.filter { $0.operation == .fdatasync }.count == 1, "\(log)")
        for operation in [FileSystem.Operation.createTemporaryFile, .rename, .unlink, .syncDirectory, .fsync] {
            #expect(!log.contains { $0.operation == operation }, "\(operation) in \(log)")
        }
        #expect(try setup.store.readEncoded(Samples.notes).restoreAttempts == 3)

        let store = setup.failing(operation, with: .ioError)
        let error = #expect(throws: ArchiveStoreError.self) { try store.setRestoreAttempts(4, for: reading) }
        guard case .systemCall(let failure)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(failure.operation == operation)
        #expect(failure.path == record)
        #expect(!failure.description.contains("\n"))
        #expect(failure.description.contains("\(operation) of \(record)"), "\(failure.description)")
        let after = try setup.store.readEncoded(Samples.notes).restoreAttempts
        #expect(operation == .write ? after == 3 : after == 4, "a failed write leaves the count before; a failed flush, the new one in the page cache")
    }

    @Test("R15: a record that cannot be opened for writing (EACCES: mode 0400 for a user who is not root) still gives its counts, for its archive and the others; it is replaced by one that keeps every count")
    func attemptRecordThatCannotBeWritten() throws {
        let setup = try Setup()
        let reading = try setup.store.readEncoded(Samples.notes)
        let generation = reading.archive.generation
        let record = setup.appDirectory.appending(RestoreAttemptRecord.fileName)
        let counted = RestoreAttemptRecord(attemptsByGeneration: [generation - 1: 1])
        try Data(counted.encoded).write(to: URL(fileURLWithPath: record.string))
        // The first open of the record is the one for writing.
        let opens = Mutex(0)
        let store = ArchiveStore(directory: setup.store.directory, fileSystem: .live.intercepting { call throws(Errno) in
            guard call.operation == .open, call.path == record else { return }
            if opens.withLock({ count in count += 1; return count == 1 }) { throw .permissionDenied }
        })
        try store.setRestoreAttempts(2, for: reading)
        #expect(opens.withLock { $0 } == 2, "opened again, to read")
        let after = RestoreAttemptRecord(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: record.string))))
        #expect(after == counted.settingAttempts(2, forGeneration: generation), "the previous archive's count is kept")
    }
}
