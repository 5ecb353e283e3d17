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
    /// An object located in phase 1: its index in the archive's objects
    /// (not a copy of it, which would retain each of its parts again).
    private struct Located {
        var index: Int
        var handle: ObjectHandle
        var coder: DecodingCoder
    }

    /// The class names an object's reserved keys give (R8, R10).
    private struct ObjectClass: Hashable {
        var className: String
        var restorationClass: String?
    }

    private let session: any PluginSession
    private let archive: Archive
    /// The objects located so far, parents first (R8, R9).
    private var order: [Located] = []
    /// The located objects by path, for stored references (R9): filled
    /// from `order` when a reference is first resolved, as most archives
    /// hold none and hashing every path would cost them for nothing.
    private var located: [ObjectPath: ObjectHandle] = [:]
    /// How many objects of `order` are in `located`.
    private var indexedCount = 0
    /// What every coder of this walk resolves a stored reference with: one
    /// closure for the walk, not one per object.
    private lazy var resolveReference: (ObjectPath) -> ObjectHandle? = { [unowned self] path in self.locatedObject(at: path) }
    /// The reserved keys of the objects of each class, built once per class
    /// (a dictionary per object cost more than many objects' decoding).
    private var reservedByClass: [ObjectClass: [String: StoredValue]] = [:]
    /// The class and reserved keys of the object before: objects of one
    /// class mostly follow one another, and comparing two strings costs
    /// less than hashing them.
    private var lastReserved: (objectClass: ObjectClass, reserved: [String: StoredValue])?
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

        let appCoder = DecodingCoder(state: archive.appState, reserved: appReserved(), resolveReference: resolveReference)
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
        let objects = archive.objects
        order.reserveCapacity(objects.count)
        for index in Self.parentsFirst(objects) {
            let object = objects[index]
            if let ancestor = ancestor(of: object.path, in: declinedSubtrees) {
                leaveOut(object.path, "its ancestor \(ancestor) was declined by its restoration class, with its subtree (R8)")
                continue
            }
            let coder = DecodingCoder(state: object.state, reserved: objectReserved(object), resolveReference: resolveReference)
            do {
                try coder.validate()
            } catch {
                issue(object.path, rule: "R16", "its saved state is malformed (\(error)); it is not restored")
                leaveOut(object.path, "its saved state is malformed: \(error) (R16)")
                continue
            }
            do {
                switch try locate(object, coder: coder) {
                case .found(let handle):
                    order.append(Located(index: index, handle: handle, coder: coder))
                case .declined(let restorationClass):
                    declinedSubtrees.insert(object.path)
                    leaveOut(object.path, "its restoration class \(restorationClass) returned no object: it and its subtree are not restored (R8)")
                case .notFound:
                    leaveOut(object.path, "no object for this path: it has no restoration class, the delegate gave none, and none is registered at this path (R8; register the object the app builds, or give it a restoration class)")
                }
            } catch {
                issue(object.path, rule: "R8", "it could not be located: \(error)")
                leaveOut(object.path, "it could not be located: \(error) (R8)")
            }
        }

        // R9 phase 2, R10: decode into objects whose class still matches.
        for entry in order {
            let object = objects[entry.index]
            do {
                let current = try session.describe(entry.handle)
                guard current.className == object.className else {
                    issue(object.path, rule: "R10", "its class is now \(current.className), the archive has \(object.className); its state is not decoded")
                    report.classMismatchPaths.append(object.path)
                    continue
                }
                try session.decode(entry.handle, from: entry.coder)
            } catch {
                issue(object.path, rule: "R9", "decoding failed: \(error)")
            }
        }

        // R9: finish.
        for entry in order {
            do {
                try session.finishedRestoringState(entry.handle)
            } catch {
                issue(objects[entry.index].path, rule: "R9", "finishedRestoringState failed: \(error)")
            }
        }
        report.restoredPaths = order.map { objects[$0.index].path }
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
    /// Where R8's lookup ends for one saved object.
    private enum Lookup {
        case found(ObjectHandle)
        /// Its restoration class returned no object (step 1).
        case declined(restorationClass: String)
        /// Neither the delegate nor the registered objects have it (step 4).
        case notFound
    }

    private func locate(_ object: ArchivedObject, coder: DecodingCoder) throws(PluginCallError) -> Lookup {
        let identifier = object.path.components.last?.identifier ?? ""
        if let restorationClass = object.restorationClass {
            guard let handle = try session.objectFromRestorationClass(restorationClass, path: object.path, coder: coder) else {
                return .declined(restorationClass: restorationClass)
            }
            try session.restoreIdentity(of: handle, identifier: identifier, restorationClass: restorationClass)
            return .found(handle)
        }
        guard let (handle, fromDelegate) = try session.objectFromDelegateOrRegistry(at: object.path, coder: coder) else {
            return .notFound
        }
        if fromDelegate {
            try session.restoreIdentity(of: handle, identifier: identifier, restorationClass: nil)
        }
        return .found(handle)
    }

    /// The object located for `path` so far, or nil (R9).
    private func locatedObject(at path: ObjectPath) -> ObjectHandle? {
        if indexedCount < order.count {
            if located.isEmpty { located.reserveCapacity(archive.objects.count) }
            for entry in order[indexedCount...] {
                located[archive.objects[entry.index].path] = entry.handle
            }
            indexedCount = order.count
        }
        return located[path]
    }

    /// The indices of `objects`, shallower paths first and in archive order
    /// at each depth: parents come before their children (R8). A counting
    /// sort by depth, as depths are few and small.
    private static func parentsFirst(_ objects: [ArchivedObject]) -> [Int] {
        var countByDepth: [Int] = []
        for object in objects {
            let depth = object.path.depth
            if depth >= countByDepth.count { countByDepth.append(contentsOf: repeatElement(0, count: depth + 1 - countByDepth.count)) }
            countByDepth[depth] += 1
        }
        var next = Array(repeating: 0, count: countByDepth.count)
        var start = 0
        for depth in countByDepth.indices {
            next[depth] = start
            start += countByDepth[depth]
        }
        var order = Array(repeating: 0, count: objects.count)
        for (index, object) in objects.enumerated() {
            let depth = object.path.depth
            order[next[depth]] = index
            next[depth] += 1
        }
        return order
    }

    /// The nearest ancestor of `path` in `set`, if any.
    private func ancestor(of path: ObjectPath, in set: Set<ObjectPath>) -> ObjectPath? {
        guard !set.isEmpty else { return nil }
        var current = path.parent
        while let ancestor = current, ancestor.depth > 0 {
            if set.contains(ancestor) { return ancestor }
            current = ancestor.parent
        }
        return nil
    }

    /// Records an object that is not restored, with why.
    private func leaveOut(_ path: ObjectPath, _ reason: String) {
        report.notRestored.append(OmittedObject(path: path, reason: reason))
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
        if let last = lastReserved, last.objectClass.className == object.className,
           last.objectClass.restorationClass == object.restorationClass {
            return last.reserved
        }
        let objectClass = ObjectClass(className: object.className, restorationClass: object.restorationClass)
        let reserved: [String: StoredValue]
        if let known = reservedByClass[objectClass] {
            reserved = known
        } else {
            var made: [String: StoredValue] = ["restored.className": .string(object.className)]
            if let restorationClass = object.restorationClass {
                made["restored.restorationClass"] = .string(restorationClass)
            }
            reservedByClass[objectClass] = made
            reserved = made
        }
        lastReserved = (objectClass, reserved)
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
