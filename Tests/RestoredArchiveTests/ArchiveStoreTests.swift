import Foundation
import RestoredArchive
import SystemPackage
import Synchronization
import Testing

@Suite("Archive store")
struct ArchiveStoreTests {
    @Test("write creates 0700 directories (parents too) and a 0600 file, even with umask 000")
    func permissions() throws {
        let temporary = try TemporaryDirectory()
        let root = temporary.path.appending("state/deep/restored")
        let store = ArchiveStore(directory: root)
        let old = umask(0)
        defer { umask(old) }
        let written = try store.write(Samples.small())
        #expect(written.generation == 1)
        for directory in [temporary.path.appending("state"), temporary.path.appending("state/deep"), root] {
            #expect(Files.mode(of: directory) == 0o700, "\(directory)")
        }
        let appDirectory = store.appDirectory(for: Samples.notes)
        #expect(appDirectory == root.appending("org.example.Notes"))
        #expect(Files.mode(of: appDirectory) == 0o700)
        #expect(Files.mode(of: store.file(for: Samples.notes, generation: .current)) == 0o600)
        #expect(Files.names(in: appDirectory) == ["archive"])

        // A second write under a umask that would strip the owner's bits still gives 0600.
        umask(0o277)
        try store.write(Samples.small(note: "second"))
        #expect(Files.mode(of: store.file(for: Samples.notes, generation: .current)) == 0o600)
        #expect(Files.mode(of: store.file(for: Samples.notes, generation: .previous)) == 0o600)
    }

    @Test("an existing state directory with a loose mode is tightened to 0700")
    func tightensMode() throws {
        let temporary = try TemporaryDirectory()
        let root = temporary.path.appending("restored")
        try FileManager.default.createDirectory(atPath: root.string, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        try ArchiveStore(directory: root).write(Samples.small())
        #expect(Files.mode(of: root) == 0o700)
    }

    @Test("a second write rotates: previous holds generation 1, current generation 2")
    func rotation() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        let first = try store.write(Samples.small(note: "first"))
        let second = try store.write(Samples.small(note: "second"))
        #expect(first.generation == 1)
        #expect(second.generation == 2)

        let reading = try store.read(Samples.notes)
        #expect(reading.source == .current)
        #expect(reading.problems.isEmpty)
        #expect(reading.archive == second)

        let previousBytes = try Files.bytes(at: store.file(for: Samples.notes, generation: .previous))
        #expect(try ArchiveCodec.decode(previousBytes) == first)
        #expect(Files.names(in: store.appDirectory(for: Samples.notes)) == ["archive", "archive.previous"])

        let third = try store.write(Samples.small(note: "third"))
        #expect(third.generation == 3)
        let verification = store.verify(Samples.notes)
        guard case .ok(3, _) = verification.current, case .ok(2, _) = verification.previous else {
            Issue.record("unexpected verification \(verification)")
            return
        }
        #expect(verification.hasUsableArchive)
    }

    @Test("an archive that arrives encoded is written as it came, with its new generation, no restore attempt, and a valid checksum")
    func writeEncoded() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        let first = try store.write(Samples.small(note: "first"))
        var arriving = Samples.small(note: "from a plugin host")
        arriving.restoreAttempts = 3
        let written = try store.write(encoded: ArchiveCodec.encode(arriving), of: Samples.notes)
        #expect(written.generation == first.generation + 1)
        var expected = arriving
        expected.generation = written.generation
        expected.restoreAttempts = 0
        let reading = try store.read(Samples.notes)
        #expect(reading.archive == expected)
        #expect(written.byteCount == ArchiveCodec.encode(expected).count)
        #expect(try Files.bytes(at: store.file(for: Samples.notes, generation: .current)) == ArchiveCodec.encode(expected))
        #expect(try store.read(Samples.notes).problems.isEmpty)
    }

    @Test("R16: a truncated current file makes read fall back to the previous generation, naming the problem")
    func fallbackOnTruncation() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        let first = try store.write(Samples.small(note: "first"))
        try store.write(Samples.small(note: "second"))
        let current = store.file(for: Samples.notes, generation: .current)
        let bytes = try Files.bytes(at: current)
        try Files.write(Array(bytes.prefix(bytes.count / 2)), to: current)

        let reading = try store.read(Samples.notes)
        #expect(reading.source == .previous)
        #expect(reading.archive == first)
        #expect(reading.problems.count == 1)
        #expect(reading.problems.first?.file == current)
        guard case .corrupt(.lengthMismatch)? = reading.problems.first?.reason else {
            Issue.record("unexpected problems \(reading.problems)")
            return
        }
        #expect(reading.problems.first?.description.contains("truncated") == true)
    }

    @Test("R16: readEncoded checks every byte as read does: a payload that holds its checksum but does not decode is passed over for the previous generation, and rewrite(encoded) keeps the generation")
    func encodedReading() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        let first = try store.write(Samples.small(note: "first"))
        let second = try store.write(Samples.small(note: "second"))
        let reading = try store.readEncoded(Samples.notes)
        #expect(reading.source == .current)
        #expect(try reading.archive.decoded() == second)
        #expect(reading.byteCount == reading.archive.bytes.count)

        // Its count changed and written back: the same generation, read back by read(_:).
        try store.rewrite(reading.archive.withRestoreAttempts(3))
        #expect(try store.read(Samples.notes).archive.restoreAttempts == 3)
        #expect(try store.read(Samples.notes).archive.generation == second.generation)

        // A crafted current file: a byte near the payload's end made 0xFF,
        // its checksum made to hold, so that its seal (header, checksum, first
        // fields) passes and its decode does not.
        let file = store.file(for: Samples.notes, generation: .current)
        let original = try Files.bytes(at: file)
        let end = original.count - 4
        let crafted = (40 ..< end).reversed().lazy.map { position -> [UInt8] in
            var bytes = original
            bytes[position] = 0xFF
            let checksum = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<end])) }
            withUnsafeBytes(of: checksum.littleEndian) { bytes.replaceSubrange(end..., with: $0) }
            return bytes
        }.first { (try? ArchiveCodec.seal(of: $0)) != nil && (try? ArchiveCodec.decode($0)) == nil }
        try Files.write(try #require(crafted), to: file)
        let fallback = try store.readEncoded(Samples.notes)
        #expect(fallback.source == .previous)
        #expect(try fallback.archive.decoded() == first)
        #expect(fallback.problems.count == 1)
        #expect(try store.readEncoded(Samples.notes, generation: .previous).archive == fallback.archive)
        #expect(throws: ArchiveStoreError.self) { try store.readEncoded(Samples.notes, generation: .current) }
    }

    @Test("R16: a flipped byte on disk is caught by the checksum and the previous generation is used")
    func fallbackOnFlippedByte() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        let first = try store.write(Samples.small(note: "first"))
        try store.write(Samples.small(note: "second"))
        let current = store.file(for: Samples.notes, generation: .current)
        var bytes = try Files.bytes(at: current)
        bytes[bytes.count / 2] ^= 0x20
        try Files.write(bytes, to: current)

        let reading = try store.read(Samples.notes)
        #expect(reading.source == .previous)
        #expect(reading.archive == first)
        #expect(reading.problems.map(\.reason).contains { if case .corrupt(.checksumMismatch) = $0 { true } else { false } })
        guard case .corrupt(.checksumMismatch) = store.verify(Samples.notes).current else {
            Issue.record("verify should report the checksum mismatch")
            return
        }
    }

    @Test("summary(of:) lists what read(_:) would read, from the headers: the same generation, file, size, time and flags")
    func summaryMatchesRead() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        var archive = Samples.small(note: "first")
        archive.timestamp = 1_763_700_000_123_456_789
        try store.write(archive)
        archive.restoreAttempts = 1
        try store.write(archive)
        for damaged in [false, true] {
            if damaged {
                let current = store.file(for: Samples.notes, generation: .current)
                var bytes = try Files.bytes(at: current)
                bytes[bytes.count / 2] ^= 0x20
                try Files.write(bytes, to: current)
            }
            let reading = try store.read(Samples.notes)
            let summary = try store.summary(of: Samples.notes)
            #expect(summary.seal.generation == reading.archive.generation)
            #expect(summary.seal.timestamp == reading.archive.timestamp)
            #expect(summary.seal.ignoresSnapshot == reading.archive.ignoresSnapshot)
            #expect(summary.seal.restoreAttempts == reading.archive.restoreAttempts)
            #expect(summary.source == reading.source)
            #expect(summary.byteCount == reading.byteCount)
            #expect(summary.problems == reading.problems)
        }
        #expect(throws: ArchiveStoreError.self) { try store.summary(of: try AppID("org.example.Nothing")) }
    }

    @Test("R16: both generations corrupt gives noUsableArchive with a one-line description that says what to do")
    func bothCorrupt() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        try store.write(Samples.small(note: "first"))
        try store.write(Samples.small(note: "second"))
        try Files.write(Array("garbage".utf8), to: store.file(for: Samples.notes, generation: .current))
        try Files.write([], to: store.file(for: Samples.notes, generation: .previous))

        let error = #expect(throws: ArchiveStoreError.self) { try store.read(Samples.notes) }
        guard case .noUsableArchive(let appID, let current?, let previous?)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(appID == Samples.notes)
        #expect(current.reason == .corrupt(.notAnArchive))
        #expect(previous.reason == .corrupt(.notAnArchive))
        let text = error?.description ?? ""
        #expect(text.hasPrefix("org.example.Notes has no usable archive"), "\(text)")
        #expect(text.contains("restored-ctl discard org.example.Notes"), "\(text)")
        #expect(!text.contains("\n"))

        // Only a corrupt previous and no current: still no usable archive, current absent.
        try FileManager.default.removeItem(atPath: store.file(for: Samples.notes, generation: .current).string)
        guard case .noUsableArchive(_, nil, _?)? = #expect(throws: ArchiveStoreError.self, performing: { try store.read(Samples.notes) }) else {
            Issue.record("expected noUsableArchive with an absent current file")
            return
        }
    }

    @Test("a file holding another app's archive is not used for this app")
    func otherAppsArchive() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        let other = try AppID("org.example.Other")
        try store.write(Samples.small(appID: other))
        try store.write(Samples.small())
        try FileManager.default.removeItem(atPath: store.file(for: Samples.notes, generation: .current).string)
        try FileManager.default.copyItem(
            atPath: store.file(for: other, generation: .current).string,
            toPath: store.file(for: Samples.notes, generation: .current).string
        )
        let error = #expect(throws: ArchiveStoreError.self) { try store.read(Samples.notes) }
        guard case .noUsableArchive(_, let current?, nil)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(current.reason == .otherApp(other))
    }

    @Test("R15: rewrite keeps the generation and leaves the previous file untouched")
    func rewriteKeepsGeneration() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        try store.write(Samples.small(note: "first"))
        var second = try store.write(Samples.small(note: "second"))
        let previous = store.file(for: Samples.notes, generation: .previous)
        let previousBefore = try Files.bytes(at: previous)

        second.restoreAttempts = 1
        second.ignoresSnapshot = false
        try store.rewrite(second)
        let reading = try store.read(Samples.notes)
        #expect(reading.archive == second)
        #expect(reading.archive.generation == 2)
        #expect(try Files.bytes(at: previous) == previousBefore)
        #expect(Files.names(in: store.appDirectory(for: Samples.notes)) == ["archive", "archive.previous"])
        #expect(Files.mode(of: store.file(for: Samples.notes, generation: .current)) == 0o600)
    }

    @Test("R15: update counts a started restore and the next write starts a new generation")
    func updateCountsRestoreAttempts() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        var archive = Samples.small()
        archive.restoreAttempts = 0
        try store.write(archive)
        let updated = try store.update(Samples.notes) { $0.restoreAttempts += 1 }
        #expect(updated.restoreAttempts == 1)
        #expect(updated.generation == 1)
        #expect(try store.read(Samples.notes).archive.restoreAttempts == 1)
        #expect(!Files.exists(store.file(for: Samples.notes, generation: .previous)))

        // The app id and generation cannot be changed through update.
        let again = try store.update(Samples.notes) {
            $0.appID = try! AppID("org.evil.App")
            $0.generation = 99
            $0.restoreAttempts += 1
        }
        #expect(again.appID == Samples.notes && again.generation == 1 && again.restoreAttempts == 2)
        #expect(try store.appIDs() == [Samples.notes])

        let missing = try AppID("org.example.Missing")
        #expect(throws: ArchiveStoreError.noArchive(missing)) {
            try store.update(missing) { $0.restoreAttempts += 1 }
        }
    }

    @Test("R15: discard removes both files and the directory, and says whether anything existed")
    func discard() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        try store.write(Samples.small(note: "first"))
        try store.write(Samples.small(note: "second"))
        try Files.write([1, 2, 3], to: store.appDirectory(for: Samples.notes).appending(".archive.0123456789abcdef.tmp"))
        #expect(try store.discard(Samples.notes))
        #expect(!Files.exists(store.appDirectory(for: Samples.notes)))
        #expect(try store.discard(Samples.notes) == false)
        #expect(throws: ArchiveStoreError.noArchive(Samples.notes)) { try store.read(Samples.notes) }
        #expect(store.verify(Samples.notes) == ArchiveVerification(appID: Samples.notes, current: .absent, previous: .absent))
        #expect(try store.appIDs() == [])
    }

    @Test("appIDs lists only directories named by valid app ids, sorted")
    func appIDs() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        #expect(try ArchiveStore(directory: temporary.path.appending("missing")).appIDs() == [])
        let ids = try ["org.example.Zebra", "com.example.Apple", "org.example.Notes"].map { try AppID($0) }
        for id in ids {
            try store.write(Samples.small(appID: id))
        }
        for name in ["not-an-id", "org..bad", "org.1x", ".hidden.dir"] {
            try FileManager.default.createDirectory(atPath: temporary.path.appending(name).string, withIntermediateDirectories: false)
        }
        try Files.write([0], to: temporary.path.appending("org.example.File"))
        #expect(try store.appIDs() == ids.sorted())
        #expect(try store.appIDs().map(\.rawValue) == ["com.example.Apple", "org.example.Notes", "org.example.Zebra"])
    }

    @Test("nothing stored: read throws noArchive with a clear line, verify reports both absent")
    func noArchive() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path.appending("never-created"))
        let error = #expect(throws: ArchiveStoreError.noArchive(Samples.notes)) { try store.read(Samples.notes) }
        #expect(error?.description == "org.example.Notes has no archive: nothing was saved for it, or it was discarded")
        #expect(!store.verify(Samples.notes).hasUsableArchive)
        #expect(!Files.exists(temporary.path.appending("never-created")))
    }

    @Test("a write after a corrupt current file keeps the good previous generation")
    func writeAfterCorruption() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        let first = try store.write(Samples.small(note: "first"))
        try store.write(Samples.small(note: "second"))
        try Files.write(Array("garbage".utf8), to: store.file(for: Samples.notes, generation: .current))
        try FileManager.default.removeItem(atPath: store.file(for: Samples.notes, generation: .previous).string)
        try Files.write(ArchiveCodec.encode(first), to: store.file(for: Samples.notes, generation: .previous))

        let third = try store.write(Samples.small(note: "third"))
        #expect(third.generation == 2)
        #expect(try store.read(Samples.notes).archive == third)
        #expect(try ArchiveCodec.decode(Files.bytes(at: store.file(for: Samples.notes, generation: .previous))) == first)
    }

    @Test("R7: a current file of a newer format version is kept as the previous generation, not destroyed")
    func newerFormatKept() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        try store.write(Samples.small(note: "first"))
        let current = store.file(for: Samples.notes, generation: .current)
        var newer = try Files.bytes(at: current)
        newer[8] = 9  // format version 9
        try Files.write(newer, to: current)

        let error = #expect(throws: ArchiveStoreError.self) { try store.read(Samples.notes) }
        guard case .noUsableArchive(_, let problem?, nil)? = error, problem.reason == .corrupt(.unsupportedVersion(9)) else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(error?.description.contains("a newer restored wrote it") == true)
        let written = try store.write(Samples.small(note: "second"))
        #expect(try store.read(Samples.notes).archive == written)
        #expect(try Files.bytes(at: store.file(for: Samples.notes, generation: .previous)) == newer)
        guard case .corrupt(.unsupportedVersion(9)) = store.verify(Samples.notes).previous else {
            Issue.record("the newer file should be kept as the previous generation")
            return
        }
    }

    @Test("leftovers of an interrupted write are removed by the next write")
    func leftovers() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        try store.write(Samples.small())
        let appDirectory = store.appDirectory(for: Samples.notes)
        try Files.write([1], to: appDirectory.appending(".archive.00000000deadbeef.tmp"))
        try store.write(Samples.small())
        #expect(Files.names(in: appDirectory) == ["archive", "archive.previous"])
    }

    @Test("a state directory that is a symbolic link is refused")
    func symbolicLinkRefused() throws {
        let temporary = try TemporaryDirectory()
        let real = temporary.path.appending("real")
        let link = temporary.path.appending("link")
        try FileManager.default.createDirectory(atPath: real.string, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: link.string, withDestinationPath: real.string)
        let store = ArchiveStore(directory: link)
        let error = #expect(throws: ArchiveStoreError.unsafeDirectory(link, .symbolicLink)) {
            try store.write(Samples.small())
        }
        #expect(error?.description.contains("symbolic link") == true)
        #expect(throws: ArchiveStoreError.unsafeDirectory(link, .symbolicLink)) { try store.read(Samples.notes) }
        #expect(Files.names(in: real).isEmpty)

        // An app directory replaced by a symbolic link is refused too.
        let good = ArchiveStore(directory: real)
        try FileManager.default.createSymbolicLink(
            atPath: good.appDirectory(for: Samples.notes).string,
            withDestinationPath: temporary.path.string
        )
        #expect(throws: ArchiveStoreError.unsafeDirectory(good.appDirectory(for: Samples.notes), .symbolicLink)) {
            try good.write(Samples.small())
        }
    }

    /// Writes a second archive through a store whose directory `swapped`
    /// (the state directory or the app's) is replaced, once the write has
    /// opened it, by a symbolic link to a directory of the test's: the write
    /// must land in the directory it checked, and nothing in the link's target.
    static func writeWhileSwapping(_ which: (ArchiveStore) -> FilePath) throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path.appending("state"))
        let first = try store.write(Samples.small(note: "first"))
        let swapped = which(store)
        let moved = FilePath(swapped.string + ".moved")
        let elsewhere = temporary.path.appending("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere.string, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: elsewhere.appending(Samples.notes.rawValue).string, withIntermediateDirectories: false)
        let swaps = Mutex(0)
        let swapping = FileSystem.live.intercepting { call in
            // The temporary file is made once both directories are open and checked.
            guard call.operation == .createTemporaryFile else { return }
            swaps.withLock { count in
                count += 1
                #expect(rename(swapped.string, moved.string) == 0)
                #expect(symlink(elsewhere.string, swapped.string) == 0)
            }
        }
        let second = try ArchiveStore(directory: store.directory, fileSystem: swapping).write(Samples.small(note: "second"))
        #expect(swaps.withLock { $0 } == 1)
        #expect(second.generation == 2)

        // Nothing went through the link.
        #expect(Files.names(in: elsewhere) == [Samples.notes.rawValue])
        #expect(Files.names(in: elsewhere.appending(Samples.notes.rawValue)).isEmpty)
        // Everything is in the directory that was checked, now by its new name.
        let appDirectory = swapped == store.directory ? moved.appending(Samples.notes.rawValue) : moved
        #expect(Files.names(in: appDirectory) == ["archive", "archive.previous"])
        if swapped == store.directory {
            #expect(try ArchiveStore(directory: moved).read(Samples.notes).archive == second)
        }
        #expect(try ArchiveCodec.decode(Files.bytes(at: appDirectory.appending("archive"))) == second)
        #expect(try ArchiveCodec.decode(Files.bytes(at: appDirectory.appending("archive.previous"))) == first)
        // The link is refused from now on.
        #expect(throws: ArchiveStoreError.unsafeDirectory(swapped, .symbolicLink)) { try store.read(Samples.notes) }
    }

    @Test("the state directory swapped for a symbolic link after it was checked: the write lands in the directory checked, nothing through the link")
    func stateDirectorySwappedMidWrite() throws {
        try Self.writeWhileSwapping { $0.directory }
    }

    @Test("an app directory swapped for a symbolic link after it was checked: the write lands in the directory checked, nothing through the link")
    func appDirectorySwappedMidWrite() throws {
        try Self.writeWhileSwapping { $0.appDirectory(for: Samples.notes) }
    }

    @Test("an app directory swapped for a symbolic link while a read opens its file: the archive comes from the directory checked, never the link's")
    func appDirectorySwappedMidRead() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path.appending("state"))
        let stored = try store.write(Samples.small(note: "stored"))
        // Another archive of the app, where the link will point.
        let elsewhere = ArchiveStore(directory: temporary.path.appending("elsewhere"))
        try elsewhere.write(Samples.small(note: "planted"))
        let appDirectory = store.appDirectory(for: Samples.notes)
        let swaps = Mutex(0)
        let swapping = FileSystem.live.intercepting { call in
            guard call.operation == .open, call.path == store.file(for: Samples.notes, generation: .current) else { return }
            swaps.withLock { count in
                count += 1
                #expect(rename(appDirectory.string, appDirectory.string + ".moved") == 0)
                #expect(symlink(elsewhere.appDirectory(for: Samples.notes).string, appDirectory.string) == 0)
            }
        }
        let reading = try ArchiveStore(directory: store.directory, fileSystem: swapping).read(Samples.notes)
        #expect(swaps.withLock { $0 } == 1)
        #expect(reading.archive == stored)
    }

    @Test("each directory is opened and checked once per write and per read, and never looked up by path (lstat) to be checked")
    func directoriesCheckedOnce() throws {
        let temporary = try TemporaryDirectory()
        let setupStore = ArchiveStore(directory: temporary.path)
        try setupStore.write(Samples.small(note: "first"))
        let calls = Mutex<[FileSystem.Call]>([])
        let recording = FileSystem.live.intercepting { call in calls.withLock { $0.append(call) } }
        let store = ArchiveStore(directory: temporary.path, fileSystem: recording)
        let appDirectory = store.appDirectory(for: Samples.notes)
        for run in [{ _ = try store.write(Samples.small(note: "second")) }, { _ = try store.read(Samples.notes) }] as [() throws -> Void] {
            calls.withLock { $0.removeAll() }
            try run()
            let log = calls.withLock { $0 }
            #expect(log.filter { $0.operation == .open && $0.path == temporary.path }.count == 1, "\(log)")
            #expect(log.filter { $0.operation == .open && $0.path == appDirectory }.count == 1, "\(log)")
            // The checks are made on the descriptors, not by path.
            #expect(!log.contains { $0.operation == .lstat && ($0.path == temporary.path || $0.path == appDirectory) }, "\(log)")
        }
    }

    @Test("a state directory owned by another user is refused")
    func otherOwnerRefused() throws {
        let temporary = try TemporaryDirectory()
        let directory: FilePath
        if geteuid() == 0 {
            directory = temporary.path.appending("foreign")
            try FileManager.default.createDirectory(atPath: directory.string, withIntermediateDirectories: false)
            #expect(chown(directory.string, 65534, 65534) == 0)
        } else {
            directory = "/"  // owned by root, not by this user
        }
        let store = ArchiveStore(directory: directory)
        let error = #expect(throws: ArchiveStoreError.self) { try store.write(Samples.small()) }
        guard case .unsafeDirectory(directory, .ownedByOtherUser)? = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(error?.description.contains("owned by user") == true)
    }

    @Test("the default directory follows XDG_STATE_HOME, else HOME")
    func defaultDirectory() {
        #expect(ArchiveStore.defaultDirectory(environment: ["XDG_STATE_HOME": "/x/state", "HOME": "/home/u"]) == "/x/state/restored")
        #expect(ArchiveStore.defaultDirectory(environment: ["HOME": "/home/u"]) == "/home/u/.local/state/restored")
        #expect(ArchiveStore.defaultDirectory(environment: ["XDG_STATE_HOME": "", "HOME": "/home/u"]) == "/home/u/.local/state/restored")
        #expect(ArchiveStore.defaultDirectory(environment: ["XDG_STATE_HOME": "relative", "HOME": "/home/u"]) == "/home/u/.local/state/restored")
        #expect(ArchiveStore.defaultDirectory(environment: [:]).string.hasSuffix("/.local/state/restored"))
    }

    @Test("a large archive goes to disk and back")
    func largeArchive() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        let archive = Samples.large(objects: 2_000, stateSize: 1_000)
        let written = try store.write(archive)
        #expect(try store.read(Samples.notes).archive == written)
        guard case .ok(1, let size) = store.verify(Samples.notes).current else {
            Issue.record("verify should report generation 1")
            return
        }
        #expect(size == ArchiveCodec.encode(written).count)
    }
}
