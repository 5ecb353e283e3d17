public import Foundation
public import RestoredArchive
import RestoredState

/// One app's archive read from the store, for `show` and `dump`: the same
/// reading a restore does (the previous generation when the current file is
/// unusable).
public struct ArchiveInspection: Sendable {
    /// The reading.
    public let reading: ArchiveReading
    /// The generation of the last complete archive kept beside this partial
    /// one, if any.
    public let lastCompleteGeneration: UInt64?
    /// The objects restored's last restore of the app did not restore, with
    /// why (from the running daemon; empty without it).
    public var notRestored: [AppRecord.LeftOut] = []

    /// Reads `appID`'s archive; throws a ``ControlError`` naming the problem:
    /// ``ExitStatus/failure`` when there is none, ``ExitStatus/corruptArchive``
    /// when neither file can be used.
    public init(appID: AppID, store: ArchiveStore) throws(ControlError) {
        do {
            reading = try store.read(appID)
        } catch {
            switch error {
            case .noArchive:
                throw ControlError(.failure, "no archive for \(appID) in \(store.directory) (known apps: restored-ctl apps)")
            case .noUsableArchive:
                throw ControlError(.corruptArchive, "\(error.description) (restored-ctl verify \(appID) says more; restored-ctl discard \(appID) removes it)")
            default:
                throw ControlError(.failure, error.description)
            }
        }
        lastCompleteGeneration = reading.archive.isPartial ? (try? store.summary(of: appID))?.lastComplete?.generation : nil
    }

    // MARK: show

    /// The archive as a tree, for people.
    public func tree(timeFormat: (Date) -> String) -> String {
        let archive = reading.archive
        var lines: [String] = []
        let written = Timestamps.date(nanoseconds: archive.timestamp).map(timeFormat) ?? "unknown"
        lines.append("\(archive.appID)")
        lines.append("  generation \(archive.generation) (\(reading.source.fileName)), \(ByteCount.text(reading.byteCount)), written \(written)")
        lines.append("  app version \(Self.orNone(archive.appVersion)), system \(Self.orNone(archive.systemVersion)), plugin \(Self.orNone(archive.plugin))")
        let damage = reading.restoreAttemptRecordIsDamaged ? " (its record, \(RestoreAttemptRecord.fileName), cannot be read: restored-ctl restore --force \(archive.appID) writes it anew)" : ""
        lines.append("  ignore-snapshot \(archive.ignoresSnapshot ? "yes" : "no"), restore attempts \(reading.restoreAttempts)\(damage)")
        if let snapshot = archive.snapshot {
            lines.append("  snapshot \(snapshot.mediaType), \(ByteCount.text(snapshot.data.count))")
        } else {
            lines.append("  snapshot none")
        }
        for problem in reading.problems {
            lines.append("  note: \(problem.description)")
        }
        if archive.isPartial {
            let kept = lastCompleteGeneration.map {
                "; the last complete archive (generation \($0)) is kept: restored-ctl restore --last-complete \(archive.appID)"
            } ?? "; no complete archive of it is kept"
            lines.append("partial: this save left \(archive.droppedObjects.count) object(s) out\(kept)")
            for object in archive.droppedObjects { lines.append("  \(object)") }
        }
        if !archive.carriedObjects.isEmpty {
            lines.append("carried over: the plugin could not say \(archive.carriedObjects.count) object(s) at this save; they are as saved then")
            for carried in archive.carriedObjects {
                let since = Timestamps.date(nanoseconds: carried.since).map(timeFormat) ?? "an unknown time"
                lines.append("  \(carried.path) (with its subtree), saved \(since)")
            }
        }
        if !notRestored.isEmpty {
            lines.append("not restored by the last restore (\(notRestored.count))")
            for object in notRestored { lines.append("  \(object.path): \(object.reason)") }
        }
        lines.append("app state")
        lines += Self.keyLines(archive.appState, indent: "  ")
        lines.append("objects (\(archive.objects.count))")
        // An object with an empty path cannot hang anywhere (R16: archives
        // are not trusted); it is listed with the objects whose parent is missing.
        let children = Dictionary(grouping: archive.objects.indices.filter { archive.objects[$0].path.depth > 0 }) { archive.objects[$0].path.parent }
        var shown = Set<Int>()
        func walk(_ parent: ObjectPath, prefix: String) {
            let indices = children[parent] ?? []
            shown.formUnion(indices)
            for (offset, index) in indices.enumerated() {
                let object = archive.objects[index]
                let last = offset == indices.count - 1
                var line = prefix + (parent.depth == 0 ? "" : (last ? "└─ " : "├─ ")) + (object.path.components.last?.description ?? "")
                line += "  \(object.className)"
                if let restorationClass = object.restorationClass { line += ", restoration class \(restorationClass)" }
                if object.kind != .child { line += " [\(object.kind == .presented ? "presented" : "saved by reference")]" }
                lines.append(line)
                let below = prefix + (parent.depth == 0 ? "" : (last ? "   " : "│  "))
                let hasChildren = !(children[object.path] ?? []).isEmpty
                lines += Self.keyLines(object.state, indent: below + (hasChildren ? "│    " : "     "))
                walk(object.path, prefix: below)
            }
        }
        walk(ObjectPath(), prefix: "")
        let orphans = archive.objects.indices.filter { !shown.contains($0) }
        if !orphans.isEmpty {
            lines.append("objects whose parent is not in the archive (\(orphans.count))")
            for index in orphans {
                let object = archive.objects[index]
                lines.append("  \(object.path.depth == 0 ? "(empty path)" : object.path.description)  \(object.className)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func keyLines(_ state: [UInt8], indent: String) -> [String] {
        guard let keys = try? StateKey.keys(of: state) else {
            return [indent + "(state unreadable: \(state.count) bytes)"]
        }
        if keys.isEmpty { return [indent + "(no keys)"] }
        let width = keys.map(\.key.count).max() ?? 0
        let typeWidth = keys.map(\.type.count).max() ?? 0
        return keys.map { key in
            indent + key.key.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + key.type.padding(toLength: typeWidth, withPad: " ", startingAt: 0) + "  " + ByteCount.text(key.size)
        }
    }

    private static func orNone(_ text: String) -> String { text.isEmpty ? "-" : text }

    // MARK: dump

    /// The whole decoded archive, for `dump --json`.
    public var dump: ArchiveDump { ArchiveDump(reading) }
}
