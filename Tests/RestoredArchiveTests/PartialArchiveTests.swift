import Foundation
import RestoredArchive
import RestoredState
import SystemPackage
import Testing

/// Partial archives (saves that left objects out) in the file format and
/// the store: the last complete archive is never pushed out (R5, R13).
@Suite("Partial archives")
struct PartialArchiveTests {
    static func partial(_ note: String, leaving paths: [String] = ["Main/Editor"]) -> Archive {
        var archive = Samples.small(note: note)
        archive.droppedObjects = paths.map {
            OmittedObject(path: ObjectPath($0.split(separator: "/").map { ObjectPath.Component(identifier: String($0), position: nil) }), reason: "its state passes the budget (R13)")
        }
        return archive
    }

    @Test("The left-out objects and the partial flag survive encoding, in the seal too; a partial flag without a list is corrupt")
    func codec() throws {
        var archive = Self.partial("p", leaving: ["Main/Editor", ""])
        archive.droppedObjects[1].reason = "the app-wide state passes the budget (R13)"
        archive.droppedObjects.append(OmittedObject(path: ObjectPath([.init(identifier: "Stack", position: 3)]), reason: "ünïcode reason"))
        let bytes = ArchiveCodec.encode(archive)
        let decoded = try ArchiveCodec.decode(bytes)
        #expect(decoded == archive)
        #expect(decoded.isPartial)
        #expect(try ArchiveCodec.seal(of: bytes).isPartial)
        #expect(try ArchiveCodec.check(bytes).isPartial)
        #expect(try !ArchiveCodec.seal(of: ArchiveCodec.encode(Samples.small())).isPartial)
        #expect(decoded.droppedObjects[1].pathText == "(app-wide state)")

        // Format version 2 for a partial archive, 1 for a complete one.
        #expect(bytes[8] == 2 && bytes[9] == 0)
        #expect(ArchiveCodec.encode(Samples.small())[8] == 1)

        // The flag set on a complete archive's bytes, checksum recomputed: corrupt, named.
        var forged = ArchiveCodec.encode(Samples.small())
        forged[12] |= 2
        let end = forged.count - ArchiveCodec.trailerLength
        let checksum = forged.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<end])) }
        forged.replaceSubrange(end..., with: withUnsafeBytes(of: checksum.littleEndian, Array.init))
        #expect(throws: ArchiveError.invalidHeader(field: "flags", value: 3)) { try ArchiveCodec.decode(forged) }
    }

    @Test("After two and after ten partial saves the last complete archive is archive.complete, restorable as it was; a complete save removes it; discard removes all")
    func pinned() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        let complete = try store.write(Samples.small(note: "complete"))
        #expect(!complete.isPartial)
        let directory = store.appDirectory(for: Samples.notes)

        #expect(try store.writeReportingSize(Self.partial("one")).lastComplete == 1)
        let encoded = ArchiveCodec.encode(Self.partial("two"))
        #expect(ArchiveCodec.isMarkedPartial(encoded) && !ArchiveCodec.isMarkedPartial(ArchiveCodec.encode(Samples.small())))
        #expect(try store.write(encoded: encoded, of: Samples.notes).lastComplete == 1)
        #expect(Files.names(in: directory) == ["archive", "archive.complete", "archive.previous"])
        #expect(try store.read(Samples.notes).archive.generation == 3)
        #expect(try store.read(Samples.notes).archive.isPartial)
        var kept = try store.read(Samples.notes, generation: .lastComplete)
        #expect(kept.archive == complete && kept.source == .lastComplete)
        #expect(try store.summary(of: Samples.notes).lastComplete?.generation == 1)

        for index in 3...10 { try store.write(Self.partial("partial \(index)")) }
        #expect(try store.read(Samples.notes).archive.generation == 11)
        #expect(try store.read(Samples.notes, generation: .previous).archive.generation == 10)
        kept = try store.read(Samples.notes, generation: .lastComplete)
        #expect(kept.archive == complete)
        #expect(store.verify(Samples.notes).lastComplete == .ok(generation: 1, size: kept.byteCount))

        // R15's counter written into the last complete archive stays there.
        let currentAttempts = try store.read(Samples.notes).archive.restoreAttempts
        var attempted = kept.archive
        attempted.restoreAttempts = currentAttempts + 5
        try store.rewrite(attempted, in: .lastComplete)
        #expect(try store.read(Samples.notes, generation: .lastComplete).archive.restoreAttempts == currentAttempts + 5)
        #expect(try store.read(Samples.notes).archive.restoreAttempts == currentAttempts)

        // A complete save: it is the last complete archive now.
        #expect(try store.writeReportingSize(Samples.small(note: "whole again")).lastComplete == nil)
        #expect(Files.names(in: directory) == ["archive", "archive.previous"])
        #expect(throws: ArchiveStoreError.noArchive(Samples.notes)) { try store.read(Samples.notes, generation: .lastComplete) }
        #expect(try store.summary(of: Samples.notes).lastComplete == nil)

        // The next partial save pins the new complete one.
        try store.write(Self.partial("after"))
        #expect(try store.read(Samples.notes, generation: .lastComplete).archive.generation == 12)
        #expect(try store.discard(Samples.notes))
        #expect(!FileManager.default.fileExists(atPath: directory.string))
    }

    @Test("A first save that is partial pins nothing; the complete previous generation is pinned when the current one is partial already")
    func nothingToPin() throws {
        let temporary = try TemporaryDirectory()
        let store = ArchiveStore(directory: temporary.path)
        let directory = store.appDirectory(for: Samples.notes)
        try store.write(Self.partial("first"))
        try store.write(Self.partial("second"))
        #expect(Files.names(in: directory) == ["archive", "archive.previous"])

        // A complete archive in the previous file only (another build wrote
        // the partial current one without pinning): the next partial save pins it.
        let other = ArchiveStore(directory: temporary.path.appending("other"))
        let whole = try other.write(Samples.small(note: "whole"))
        try other.write(Self.partial("partial"))
        try FileManager.default.removeItem(atPath: other.file(for: Samples.notes, generation: .lastComplete).string)
        try other.write(Self.partial("again"))
        #expect(try other.read(Samples.notes, generation: .lastComplete).archive == whole)
    }
}
