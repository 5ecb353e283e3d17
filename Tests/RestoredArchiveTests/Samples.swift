import RestoredArchive
import RestoredState

/// Archives used by several tests.
enum Samples {
    static let notes = try! AppID("org.example.Notes")

    /// A small archive touching every field (a few hundred bytes).
    static func small(appID: AppID = notes, note: String = "first") -> Archive {
        Archive(
            appID: appID,
            appVersion: "1.2.3",
            systemVersion: "restored 0.1",
            timestamp: 1_700_000_000_123_456_789,
            plugin: "libExampleNotesPlugin.so",
            generation: 7,
            ignoresSnapshot: true,
            restoreAttempts: 1,
            appState: Array("app state: \(note)".utf8),
            objects: [
                ArchivedObject(
                    path: ObjectPath(identifiers: "MainWindow"),
                    className: "NotesWindow",
                    restorationClass: "NotesWindowRestorer",
                    kind: .child,
                    state: [1, 2, 3]
                ),
                ArchivedObject(
                    path: ObjectPath([
                        .init(identifier: "MainWindow"),
                        .init(identifier: "Detail", position: 2),
                    ]),
                    className: "NoteDetail",
                    kind: .presented,
                    state: Array("détail ✓".utf8)
                ),
                ArchivedObject(
                    path: ObjectPath(identifiers: "Manual"),
                    className: "Settings",
                    kind: .manual,
                    state: []
                ),
            ],
            snapshot: Snapshot(mediaType: "text/plain", data: Array("preview".utf8))
        )
    }

    /// A large archive: `count` objects of `stateSize` bytes of state each.
    static func large(objects count: Int, stateSize: Int) -> Archive {
        var objects: [ArchivedObject] = []
        objects.reserveCapacity(count)
        let state = (0..<stateSize).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for index in 0..<count {
            objects.append(
                ArchivedObject(
                    path: ObjectPath([
                        .init(identifier: "MainWindow"),
                        .init(identifier: "List"),
                        .init(identifier: "Row", position: Int64(index)),
                    ]),
                    className: "RowView",
                    restorationClass: index % 3 == 0 ? "RowRestorer" : nil,
                    kind: .child,
                    state: state
                )
            )
        }
        return Archive(
            appID: notes,
            appVersion: "2.0",
            systemVersion: "restored 0.1",
            timestamp: 1_700_000_000_000_000_000,
            plugin: "libExampleNotesPlugin.so",
            appState: Array(repeating: 0xAB, count: 4096),
            objects: objects,
            snapshot: nil
        )
    }
}
