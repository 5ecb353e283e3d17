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
        let second = asked.fillingCarriedObjects(from: [first])
        #expect(second.objects.map(\.path.description) == ["Players", "Players/a", "Players/b", "Players/b/Playlist"])
        #expect(second.objects.map(\.state) == [[1], [20], [3], [4]])
        #expect(second.carriedObjects == [CarriedObject(path: Self.path("Players/b"), since: 100)])
        #expect(second.droppedObjects.map(\.path.description) == ["Players/z"])
        #expect(second.isPartial)
        #expect(try ArchiveCodec.decode(ArchiveCodec.encode(second)) == second)

        // Carried a second time: from the second archive, still "since 100".
        var again = Archive(appID: appID, timestamp: 300, objects: [Self.object("Players", 1), Self.object("Players/a", 21)])
        again.carriedObjects = [CarriedObject(path: Self.path("Players/b"))]
        let third = again.fillingCarriedObjects(from: [second])
        #expect(third.carriedObjects == [CarriedObject(path: Self.path("Players/b"), since: 100)])
        #expect(third.objects.map(\.state) == [[1], [21], [3], [4]])
        #expect(!third.isPartial)

        // No last archive: nothing to carry, said.
        let alone = again.fillingCarriedObjects(from: [])
        #expect(alone.carriedObjects.isEmpty)
        #expect(alone.droppedObjects.map(\.path.description) == ["Players/b"])
        #expect(alone.droppedObjects.first?.reason.contains("R6") == true)
    }

    @Test("R6: a carried object keeps the time of its carried ancestor and the carried records under it; one the newest archive lacks comes from the last complete one; restore attempts start at 0")
    func nestedAndComplete() throws {
        let appID = try AppID("org.example.Player")
        var newest = Archive(appID: appID, timestamp: 300, restoreAttempts: 2, objects: [
            Self.object("A", 1), Self.object("A/B", 2), Self.object("A/B/C", 3), Self.object("A/B/D", 4),
        ])
        newest.carriedObjects = [CarriedObject(path: Self.path("A/B"), since: 100), CarriedObject(path: Self.path("A/B/D"), since: 50)]
        newest.droppedObjects = [OmittedObject(path: Self.path("E"), reason: "too big (R13)")]
        let complete = Archive(appID: appID, timestamp: 200, objects: [Self.object("A", 1), Self.object("E", 9), Self.object("E/F", 10)])

        var asked = Archive(appID: appID, timestamp: 400, restoreAttempts: 5, objects: [Self.object("A", 11), Self.object("A/B", 12)])
        asked.carriedObjects = [CarriedObject(path: Self.path("A/B/C")), CarriedObject(path: Self.path("E"))]
        let filled = asked.fillingCarriedObjects(from: [newest, complete])
        #expect(filled.objects.map(\.path.description) == ["A", "A/B", "E", "E/F", "A/B/C"])
        #expect(filled.restoreAttempts == 0)
        // A/B/C was carried with A/B since 100; E comes from the complete archive of 200.
        #expect(filled.carriedObjects == [CarriedObject(path: Self.path("E"), since: 200), CarriedObject(path: Self.path("A/B/C"), since: 100)])

        // Carrying A/B again takes its carried record under it (A/B/D since 50).
        var again = Archive(appID: appID, timestamp: 500, objects: [Self.object("A", 12)])
        again.carriedObjects = [CarriedObject(path: Self.path("A/B"))]
        let whole = again.fillingCarriedObjects(from: [newest])
        #expect(whole.carriedObjects == [CarriedObject(path: Self.path("A/B"), since: 100), CarriedObject(path: Self.path("A/B/D"), since: 50)])
        #expect(whole.objects.map(\.path.description) == ["A", "A/B", "A/B/C", "A/B/D"])
    }

    @Test("R16: a host's carry requests no walk makes are left out and said: the empty path, a path twice or under another carried one, one the save also wrote, one without its parent")
    func hostileRequests() throws {
        let appID = try AppID("org.example.Player")
        let last = Archive(appID: appID, timestamp: 100, objects: [Self.object("A", 1), Self.object("A/B", 2), Self.object("A/B/C", 3), Self.object("X", 4), Self.object("X/Y", 5)])
        var asked = Archive(appID: appID, timestamp: 200, objects: [Self.object("A", 11), Self.object("A/Q", 12)])
        asked.carriedObjects = [
            CarriedObject(path: ObjectPath()), CarriedObject(path: Self.path("A/B")), CarriedObject(path: Self.path("A/B")),
            CarriedObject(path: Self.path("A/B/C")), CarriedObject(path: Self.path("A/Q")), CarriedObject(path: Self.path("X/Y")),
        ]
        let filled = asked.fillingCarriedObjects(from: [last])
        #expect(filled.carriedObjects == [CarriedObject(path: Self.path("A/B"), since: 100)])
        #expect(filled.objects.map(\.path.description) == ["A", "A/Q", "A/B", "A/B/C"])
        #expect(Set(filled.droppedObjects.map(\.path.description)) == ["", "A/B", "A/B/C", "A/Q", "X/Y"])
        #expect(filled.droppedObjects.allSatisfy { $0.reason.contains("R16") })
        // What restored writes holds every path once (R3).
        #expect(Set(filled.objects.map(\.path)).count == filled.objects.count)
    }
}
