import RestoredArchive
import RestoredState
import Testing

/// Objects a save carried over from the archive before (R6 per object): in
/// the file format, and filled in from the last archive.
@Suite("Carried objects")
struct CarriedObjectTests {
    static func path(_ text: String) -> ObjectPath {
        ObjectPath(text.split(separator: "/").map { ObjectPath.Component(identifier: String($0), position: nil) })
    }

    static func object(_ path: String, _ state: UInt8) -> ArchivedObject {
        ArchivedObject(path: Self.path(path), className: "Node", state: [state])
    }

    @Test("The carried objects and their times survive encoding, with format version 3 and the carry flag, partial or not; a carry flag without a list is corrupt")
    func codec() throws {
        var archive = Archive(appID: try AppID("org.example.Player"), timestamp: 42, objects: [Self.object("Players", 1)])
        archive.carriedObjects = [CarriedObject(path: Self.path("Players/b"), since: -5), CarriedObject(path: Self.path("Players/c"), since: 1_700_000_000_000_000_000)]
        let bytes = ArchiveCodec.encode(archive)
        #expect(try ArchiveCodec.decode(bytes) == archive)
        #expect(bytes[8] == 3 && bytes[9] == 0)
        #expect(ArchiveCodec.carriesObjects(bytes))
        #expect(try ArchiveCodec.check(bytes).carriesObjects)
        #expect(!ArchiveCodec.carriesObjects(ArchiveCodec.encode(Archive(appID: archive.appID))))

        // Partial and carrying at once: still version 3, both lists read back.
        archive.droppedObjects = [OmittedObject(path: Self.path("Players/d"), reason: "too big (R13)")]
        let both = ArchiveCodec.encode(archive)
        #expect(both[8] == 3)
        #expect(try ArchiveCodec.decode(both) == archive)
        #expect(try ArchiveCodec.check(both).isPartial)

        // The carry flag set on a version 1 file (checksum made right): corrupt, named.
        var forged = ArchiveCodec.encode(Archive(appID: archive.appID))
        forged[12] |= 4
        let end = forged.count - ArchiveCodec.trailerLength
        let checksum = forged.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<end])) }
        forged.replaceSubrange(end..., with: withUnsafeBytes(of: checksum.littleEndian, Array.init))
        #expect(throws: ArchiveError.invalidHeader(field: "flags", value: 4)) { try ArchiveCodec.decode(forged) }
    }

    @Test("R6: a carried object is filled in with its subtree from the last archive, keeping the time of the save it came from; carried again, the first time stays; one the last archive lacks is left out and the archive is partial")
    func filling() throws {
        let appID = try AppID("org.example.Player")
        let first = Archive(appID: appID, timestamp: 100, objects: [
            Self.object("Players", 1), Self.object("Players/a", 2), Self.object("Players/b", 3), Self.object("Players/b/Playlist", 4), Self.object("Players/bb", 5),
        ])
        // The second save: a answered (new state), b did not, z did not and was never saved.
        var asked = Archive(appID: appID, timestamp: 200, objects: [Self.object("Players", 1), Self.object("Players/a", 20)])
        asked.carriedObjects = [CarriedObject(path: Self.path("Players/b")), CarriedObject(path: Self.path("Players/z"))]
        let second = asked.fillingCarriedObjects(from: first)
        #expect(second.objects.map(\.path.description) == ["Players", "Players/a", "Players/b", "Players/b/Playlist"])
        #expect(second.objects.map(\.state) == [[1], [20], [3], [4]])
        #expect(second.carriedObjects == [CarriedObject(path: Self.path("Players/b"), since: 100)])
        #expect(second.droppedObjects.map(\.path.description) == ["Players/z"])
        #expect(second.isPartial)
        #expect(try ArchiveCodec.decode(ArchiveCodec.encode(second)) == second)

        // Carried a second time: from the second archive, still "since 100".
        var again = Archive(appID: appID, timestamp: 300, objects: [Self.object("Players", 1), Self.object("Players/a", 21)])
        again.carriedObjects = [CarriedObject(path: Self.path("Players/b"))]
        let third = again.fillingCarriedObjects(from: second)
        #expect(third.carriedObjects == [CarriedObject(path: Self.path("Players/b"), since: 100)])
        #expect(third.objects.map(\.state) == [[1], [21], [3], [4]])
        #expect(!third.isPartial)

        // No last archive: nothing to carry, said.
        let alone = again.fillingCarriedObjects(from: nil)
        #expect(alone.carriedObjects.isEmpty)
        #expect(alone.droppedObjects.map(\.path.description) == ["Players/b"])
        #expect(alone.droppedObjects.first?.reason.contains("R6") == true)
    }
}
