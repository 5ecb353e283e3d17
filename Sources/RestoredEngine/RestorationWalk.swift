import RestoredArchive
import RestoredState

/// The restoration walk of one app (R7-R12, R16).
///
/// `shouldRestoreApplicationState` sees the app state and reserved keys
/// (R7); the snapshot is handed over unless the archive says to ignore it
/// (R12); then, parents before children, each object is located or created
/// (R8); then every located object whose class still matches is decoded
/// (R9, R10), with references resolved to the located objects; then
/// `finishedRestoringState` on each, `didDecodeRestorableState` and
/// `restorationDidFinish` (R9).
///
/// An object whose restoration class returns nil is not restored and neither
/// is its subtree (R8 step 1). An object that is simply not found leaves its
/// children free to be found on their own.
final class RestorationWalk {
    private struct Located {
        var object: ArchivedObject
        var handle: ObjectHandle
        var coder: DecodingCoder
    }

    private let session: any PluginSession
    private let archive: Archive
    private var located: [ObjectPath: ObjectHandle] = [:]
    private var report: RestorationReport
    private let reason: RestoreReason

    init(session: any PluginSession, archive: Archive, reason: RestoreReason) {
        self.session = session
        self.reason = reason
        self.archive = archive
        self.report = RestorationReport(appID: archive.appID, outcome: .restored)
    }

    func run() -> RestorationReport {
        session.begin(.restoring(reason))
        defer { session.endWalk() }

        let appCoder = DecodingCoder(state: archive.appState, reserved: appReserved()) { [unowned self] path in self.located[path] }
        do {
            try appCoder.validate()
        } catch {
            report.outcome = .unusableArchive("the app-wide state is malformed: \(error)")
            return report
        }

        // R7.
        do {
            guard try session.shouldRestoreApplicationState(appCoder) else {
                report.outcome = .declined
                return report
            }
        } catch {
            return fail(error.description)
        }

        // R12.
        if let snapshot = archive.snapshot {
            if archive.ignoresSnapshot {
                report.snapshot = .ignored
            } else {
                do {
                    try session.presentSnapshot(snapshot)
                    report.snapshot = .presented
                } catch {
                    issue(nil, rule: "R12", "the snapshot could not be shown: \(error)")
                }
            }
        }

        // R8, R9 phase 1: locate or create, parents before children.
        var declinedSubtrees: Set<ObjectPath> = []
        var order: [Located] = []
        let objects = archive.objects.enumerated().sorted { lhs, rhs in
            (lhs.element.path.depth, lhs.offset) < (rhs.element.path.depth, rhs.offset)
        }.map(\.element)
        for object in objects {
            if hasAncestor(of: object.path, in: declinedSubtrees) {
                report.notRestoredPaths.append(object.path)
                continue
            }
            let coder = DecodingCoder(state: object.state, reserved: objectReserved(object)) { [unowned self] path in self.located[path] }
            do {
                try coder.validate()
            } catch {
                issue(object.path, rule: "R16", "its saved state is malformed (\(error)); it is not restored")
                report.notRestoredPaths.append(object.path)
                continue
            }
            do {
                guard let handle = try locate(object, coder: coder, declinedSubtrees: &declinedSubtrees) else {
                    report.notRestoredPaths.append(object.path)
                    continue
                }
                located[object.path] = handle
                order.append(Located(object: object, handle: handle, coder: coder))
            } catch {
                issue(object.path, rule: "R8", "it could not be located: \(error)")
                report.notRestoredPaths.append(object.path)
            }
        }

        // R9 phase 2, R10: decode into objects whose class still matches.
        for entry in order {
            do {
                let current = try session.describe(entry.handle)
                guard current.className == entry.object.className else {
                    issue(entry.object.path, rule: "R10", "its class is now \(current.className), the archive has \(entry.object.className); its state is not decoded")
                    report.classMismatchPaths.append(entry.object.path)
                    continue
                }
                try session.decode(entry.handle, from: entry.coder)
            } catch {
                issue(entry.object.path, rule: "R9", "decoding failed: \(error)")
            }
        }

        // R9: finish.
        for entry in order {
            do {
                try session.finishedRestoringState(entry.handle)
            } catch {
                issue(entry.object.path, rule: "R9", "finishedRestoringState failed: \(error)")
            }
        }
        report.restoredPaths = order.map(\.object.path)
        report.restoredObjectCount = order.count
        do {
            try session.didDecodeRestorableState(appCoder)
        } catch {
            issue(nil, rule: "R9", "the app-wide state could not be decoded: \(error)")
        }
        do {
            try session.restorationDidFinish()
        } catch {
            issue(nil, rule: "R9", "restorationDidFinish failed: \(error)")
        }
        return report
    }

    /// R8: restoration class, then delegate, then registered object.
    private func locate(_ object: ArchivedObject, coder: DecodingCoder, declinedSubtrees: inout Set<ObjectPath>) throws(PluginCallError) -> ObjectHandle? {
        let identifier = object.path.components.last?.identifier ?? ""
        if let restorationClass = object.restorationClass {
            guard let handle = try session.objectFromRestorationClass(restorationClass, path: object.path, coder: coder) else {
                declinedSubtrees.insert(object.path)
                return nil
            }
            try session.restoreIdentity(of: handle, identifier: identifier, restorationClass: restorationClass)
            return handle
        }
        if let handle = try session.objectFromDelegate(path: object.path, coder: coder) {
            try session.restoreIdentity(of: handle, identifier: identifier, restorationClass: nil)
            return handle
        }
        return try session.registeredObject(at: object.path)
    }

    private func hasAncestor(of path: ObjectPath, in set: Set<ObjectPath>) -> Bool {
        guard !set.isEmpty else { return false }
        var current = path.parent
        while let ancestor = current, ancestor.depth > 0 {
            if set.contains(ancestor) { return true }
            current = ancestor.parent
        }
        return false
    }

    private func appReserved() -> [String: StoredValue] {
        [
            "restored.appID": .string(archive.appID.rawValue),
            "restored.appVersion": .string(archive.appVersion),
            "restored.systemVersion": .string(archive.systemVersion),
            "restored.timestamp": .date(Double(archive.timestamp) / 1e9),
            "restored.plugin": .string(archive.plugin),
        ]
    }

    private func objectReserved(_ object: ArchivedObject) -> [String: StoredValue] {
        var reserved: [String: StoredValue] = ["restored.className": .string(object.className)]
        if let restorationClass = object.restorationClass {
            reserved["restored.restorationClass"] = .string(restorationClass)
        }
        return reserved
    }

    private func issue(_ path: ObjectPath?, rule: String?, _ message: String) {
        report.issues.append(EngineIssue(appID: archive.appID, path: path, rule: rule, message: message))
    }

    private func fail(_ message: String) -> RestorationReport {
        issue(nil, rule: nil, message)
        report.outcome = .failed(message)
        return report
    }
}
