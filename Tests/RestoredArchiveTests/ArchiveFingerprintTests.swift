import RestoredArchive
import RestoredState
import Testing

/// The fingerprint a plugin host keeps of the last archive it sent, in place
/// of the archive: what autosave's "unchanged" rests on.
@Suite("Archive fingerprints")
struct ArchiveFingerprintTests {
    static func path(_ text: String) -> ObjectPath {
        ObjectPath(text.split(separator: "/").map { ObjectPath.Component(identifier: String($0), position: nil) })
    }

    static func archive() throws -> Archive {
        var archive = Archive(
            appID: try AppID("org.example.Notes"), appVersion: "2.1", systemVersion: "restored 1", timestamp: 1_700_000_000,
            plugin: "libnotes.so", appState: [1, 2, 3],
            objects: [
                ArchivedObject(path: path("Window"), className: "Window", state: [4, 5]),
                ArchivedObject(path: path("Window/Editor"), className: "Editor", restorationClass: "EditorClass", state: [6]),
            ]
        )
        archive.snapshot = Snapshot(mediaType: "image/png", data: [7, 8])
        return archive
    }

    @Test("What hasSameContent ignores (the timestamp, generation, restore attempts, system version) leaves the fingerprint as it is")
    func sameContent() throws {
        let first = try Self.archive()
        var second = first
        second.timestamp += 300
        second.generation = 9
        second.restoreAttempts = 2
        second.systemVersion = "restored 2"
        #expect(first.hasSameContent(as: second))
        #expect(ArchiveFingerprint(ofEncoded: ArchiveCodec.encode(first)) == ArchiveFingerprint(ofEncoded: ArchiveCodec.encode(second)))
    }

    @Test("Every change of content that hasSameContent sees changes the fingerprint")
    func changedContent() throws {
        let original = try Self.archive()
        let changes: [(String, (inout Archive) -> Void)] = [
            ("app version", { $0.appVersion = "2.2" }),
            ("plugin", { $0.plugin = "libnotes2.so" }),
            ("ignores snapshot", { $0.ignoresSnapshot = true }),
            ("app state", { $0.appState = [1, 2, 4] }),
            ("app state moved into an object", { $0.appState = [1, 2]; $0.objects[0].state = [3, 4, 5] }),
            ("an object's state", { $0.objects[1].state = [7] }),
            ("an object's path", { $0.objects[1].path = Self.path("Window/Editor2") }),
            ("an object's position", { $0.objects[1].path = ObjectPath([.init(identifier: "Window", position: nil), .init(identifier: "Editor", position: 0)]) }),
            ("an object's class", { $0.objects[1].className = "Viewer" }),
            ("an object's restoration class", { $0.objects[1].restorationClass = nil }),
            ("an object's kind", { $0.objects[1].kind = .presented }),
            ("an object less", { $0.objects.removeLast() }),
            ("the objects' order", { $0.objects.reverse() }),
            ("the snapshot's data", { $0.snapshot?.data = [7, 9] }),
            ("the snapshot's type", { $0.snapshot?.mediaType = "image/jpeg" }),
            ("no snapshot", { $0.snapshot = nil }),
            ("an object left out", { $0.droppedObjects = [OmittedObject(path: Self.path("Window/Other"), reason: "too big (R13)")] }),
            ("an object carried over", { $0.carriedObjects = [CarriedObject(path: Self.path("Window/Other"), since: 5)] }),
        ]
        let fingerprint = ArchiveFingerprint(ofEncoded: ArchiveCodec.encode(original))
        // Bytes that are no archive are fingerprinted whole, never refused.
        #expect(ArchiveFingerprint(ofEncoded: Array(ArchiveCodec.encode(original).prefix(30))) != fingerprint)
        for (name, change) in changes {
            var changed = original
            change(&changed)
            #expect(!changed.hasSameContent(as: original), "\(name)")
            #expect(ArchiveFingerprint(ofEncoded: ArchiveCodec.encode(changed)) != fingerprint, "\(name)")
        }
    }
}
