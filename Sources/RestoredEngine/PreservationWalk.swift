import FoundationEssentials
import RestoredArchive
import RestoredState

/// The preservation walk of one app (R1-R6, R12-R14).
///
/// Order of events: `shouldSaveApplicationState` (R6); discovery of the
/// object tree from the roots (the plugin's whole tree in one `list_tree`
/// call when it has one, else `list_objects` object by object; the rules
/// are the same), skipping objects without identifier with their
/// subtrees (R1, R2), hanging presented objects under their presentation
/// context (R4), refusing duplicate paths (R3); then
/// `willEncodeRestorableState` with the app-wide coder; then one coder per
/// object (R5), with byte budgets (R13); then the snapshot (R12).
/// The tree is discovered before anything is encoded so that every object
/// reference, from the app coder too, can be stored as a path (R14); an
/// object referenced but outside the tree is preserved under the path of the
/// object (or app) that referenced it.
final class PreservationWalk {
    private struct Record {
        var object: ReportedObject
        var path: ObjectPath
        var kind: ArchivedObject.Kind
        var state: [UInt8] = []
        var isDropped = false
        /// Carried over from the last archive with its subtree (its plugin
        /// could not say it now); restored fills it in.
        var isCarried = false
        /// The last components of the objects recorded under this one.
        var childComponents: Set<ObjectPath.Component> = []
    }

    /// Where an object hangs: a recorded object (its path and index in
    /// `records`), or the root level.
    private struct Parent {
        var path: ObjectPath
        var index: Int?

        static let root = Parent(path: ObjectPath(), index: nil)
    }

    private let session: any PluginSession
    private let configuration: EngineConfiguration
    private let appID: AppID
    private var records: [Record] = []
    private var recordsByHandle: [ObjectHandle: Int] = [:]
    /// The last components of the objects at the root level. With each
    /// record's `childComponents`, they keep paths unique (R3) by hashing one
    /// component per object instead of whole paths. (One table for the
    /// whole walk cost more: it grew to every object, each growth hashing
    /// them all again, where a parent's table is reserved for the children
    /// it lists.)
    private var rootComponents: Set<ObjectPath.Component> = []
    private var droppedRoots: [ObjectPath] = []
    private var carriedRoots: [ObjectPath] = []
    private var report: PreservationReport
    private let occasion: SaveOccasion
    /// The record being encoded: where the references it stores hang
    /// (R14). Its index only: its path is copied when a reference needs it.
    private var encodingOwner = 0
    /// The coder of every object of this walk, emptied before each (R5):
    /// one buffer and one reference resolver for the walk, not one per object.
    private lazy var objectCoder = EncodingCoder(budget: configuration.objectByteBudget, allowsCarryOver: true) { [unowned self] handle in
        let owner = self.encodingOwner
        return self.referencePath(for: handle, owner: Parent(path: self.records[owner].path, index: owner))
    }

    init(session: any PluginSession, configuration: EngineConfiguration, occasion: SaveOccasion) {
        self.session = session
        self.occasion = occasion
        self.configuration = configuration
        self.appID = session.appID
        self.report = PreservationReport(appID: session.appID, outcome: .failed("not run"))
    }

    /// Runs the walk; the archive is nil unless the outcome is to save it.
    func run(timestamp: Int64) -> (archive: Archive?, report: PreservationReport) {
        session.begin(.preserving(occasion))
        defer { session.endWalk() }

        let reserved: [String: StoredValue] = [
            "restored.appID": .string(appID.rawValue),
            "restored.appVersion": .string(session.appVersion),
            "restored.systemVersion": .string(configuration.systemVersion),
            "restored.timestamp": .date(Double(timestamp) / 1e9),
        ]
        let appCoder = EncodingCoder(budget: configuration.objectByteBudget, reserved: reserved) { [unowned self] handle in
            self.referencePath(for: handle, owner: .root)
        }

        // R6: the delegate decides first: save, decline, or keep what the
        // store has.
        do {
            switch try session.saveDecision(appCoder) {
            case .save:
                break
            case .decline:
                report.outcome = .declined
                return (nil, report)
            case .keepLastArchive:
                report.outcome = .kept(PreservationReport.keptByPlugin)
                return (nil, report)
            }
        } catch {
            return fail(error.description)
        }

        // R1-R4: discover the tree.
        if let failure = discover() { return fail(failure) }

        // R6, R14: app-wide state, then the objects.
        do {
            try session.willEncodeRestorableState(appCoder)
        } catch {
            omit(nil, rule: "R6", "willEncodeRestorableState failed (\(error)); the app-wide state is saved as far as it was encoded")
        }
        var appState = appCoder.bytes
        if appCoder.exceededBudget {
            omit(nil, rule: "R13", "the app-wide state exceeds \(configuration.objectByteBudget) bytes and is not saved")
            appState = []
        } else if let refusal = appCoder.refusal {
            // The plugin went on after a refused value: it is missing all the same.
            omit(nil, rule: "R5", "a value was refused and is not saved: \(refusal); the rest of the app-wide state is saved")
        }

        var total = appState.count
        var index = 0
        while index < records.count {
            encode(at: index, total: &total)
            index += 1
        }

        // R12: redact, then snapshot.
        var snapshot: Snapshot?
        do {
            try session.willTakeSnapshot()
            snapshot = try session.takeSnapshot()
        } catch {
            issue(nil, rule: "R12", "no snapshot: \(error)")
        }

        // One pass over the records: filtering them into new arrays would
        // copy (and retain the parts of) every record twice.
        var objects: [ArchivedObject] = []
        var carried: [CarriedObject] = []
        objects.reserveCapacity(records.count)
        for record in records where !record.isDropped {
            if record.isCarried {
                carried.append(CarriedObject(path: record.path))
            } else {
                objects.append(ArchivedObject(
                    path: record.path, className: record.object.className,
                    restorationClass: record.object.restorationClass, kind: record.kind, state: record.state
                ))
            }
        }
        report.savedPaths = objects.map(\.path)
        report.savedObjectCount = objects.count
        let archive = Archive(
            appID: appID,
            appVersion: session.appVersion,
            systemVersion: configuration.systemVersion,
            timestamp: timestamp,
            plugin: session.pluginName,
            ignoresSnapshot: session.ignoreSnapshotRequested,
            appState: appState,
            objects: objects,
            snapshot: snapshot,
            droppedObjects: report.droppedObjects,
            carriedObjects: carried
        )
        report.hasSnapshot = snapshot != nil
        return (archive, report)
    }

    // MARK: Discovery

    /// R1-R4: discovers the tree, in one call when the plugin can; the
    /// failure to list the roots, or nil. (A method of its own, so that the
    /// tree in one call is gone once its objects are recorded.)
    private func discover() -> String? {
        var tree: ReportedTree?
        do {
            tree = try session.listTree()
        } catch {
            issue(nil, rule: nil, "\(error); restored lists this plugin's objects with list_objects from now on, which loses nothing (fix its list_tree, or leave it NULL)")
        }
        if let tree {
            records.reserveCapacity(tree.objects.count)
            recordsByHandle.reserveCapacity(tree.objects.count)
            rootComponents.reserveCapacity(tree.roots.count)
            for root in tree.roots {
                visit(at: root, in: tree, parent: .root, position: nil, kind: .child, context: nil)
            }
        } else {
            let roots: [ReportedObject]
            do {
                roots = try session.listObjects(under: nil)
            } catch {
                return error.description
            }
            rootComponents.reserveCapacity(roots.count)
            for root in roots {
                visit(root, parent: .root, position: nil, kind: .child, context: nil)
            }
        }
        return nil
    }

    /// Records `object` under `parent` and walks its subtree, listed with
    /// `list_objects`.
    @discardableResult
    private func visit(_ object: ReportedObject, parent: Parent, position: Int64?, kind: ArchivedObject.Kind, context: Parent?) -> ObjectPath? {
        guard let own = record(object, parent: parent, position: position, kind: kind) else { return nil }
        // R4: a root, or an object that says so, is the context for presented objects below it.
        let ownContext = (context == nil || object.definesPresentationContext) ? own : context!
        visitListedChildren(of: object, own: own, context: ownContext)
        return own.path
    }

    /// Records the object at `treeIndex` of the plugin's tree under `parent`
    /// and walks its subtree as the tree has it: children first, in order,
    /// then presented objects, as ``visit(_:parent:position:kind:context:)``
    /// does with those `list_objects` gives. (The tree is a parameter, not
    /// a property: read through one, each object's visit would copy it.)
    private func visit(at treeIndex: Int, in tree: ReportedTree, parent: Parent, position: Int64?, kind: ArchivedObject.Kind, context: Parent?) {
        let object = tree.objects[treeIndex]
        guard let own = record(object, parent: parent, position: position, kind: kind) else { return }
        let ownContext = (context == nil || object.definesPresentationContext) ? own : context!
        // Its subtree is in the tree at another place of it, if at all.
        guard !object.hasUnlistedChildren else {
            visitListedChildren(of: object, own: own, context: ownContext)
            return
        }
        var count = 0
        for _ in tree.children(of: treeIndex) { count += 1 }
        guard count > 0, let index = own.index else { return }
        records[index].childComponents.reserveCapacity(count)
        var childPosition: Int64 = 0
        var hasPresented = false
        for child in tree.children(of: treeIndex) {
            guard !tree.objects[child].isPresented else {
                hasPresented = true
                continue
            }
            let position = object.disambiguatesChildren ? childPosition : nil
            childPosition += 1
            visit(at: child, in: tree, parent: own, position: position, kind: .child, context: ownContext)
        }
        guard hasPresented else { return }
        for child in tree.children(of: treeIndex) where tree.objects[child].isPresented {
            visit(at: child, in: tree, parent: ownContext, position: nil, kind: .presented, context: ownContext)
        }
    }

    /// R1-R3: records `object` under `parent`, or says why it is not saved
    /// (nil); its place as the parent of its children.
    private func record(_ object: ReportedObject, parent: Parent, position: Int64?, kind: ArchivedObject.Kind) -> Parent? {
        // R1, R2: no identifier, no preservation, for the whole subtree.
        guard !object.identifier.isEmpty else {
            report.skippedWithoutIdentifier += 1
            return nil
        }
        let component = ObjectPath.Component(identifier: object.identifier, position: position)
        let path = parent.path.appending(object.identifier, position: position)
        // Byte search: Foundation's String.contains(_:) goes through NSString.
        guard !object.identifier.utf8.contains(UInt8(ascii: "/")) else {
            omit(path, rule: "R3", "its identifier \"\(object.identifier)\" contains \"/\"; it and its subtree are not saved")
            return nil
        }
        // One hash per set: insert, and take the component back out if the
        // object turns out to be recorded already.
        let isNewPath = if let index = parent.index {
            records[index].childComponents.insert(component).inserted
        } else {
            rootComponents.insert(component).inserted
        }
        guard isNewPath else {
            omit(path, rule: "R3", "another object already has this path; give siblings distinct identifiers or let their container disambiguate them. This one and its subtree are not saved")
            return nil
        }
        let index = records.count
        if let seen = recordsByHandle.updateValue(index, forKey: object.handle) {
            recordsByHandle[object.handle] = seen
            if let parentIndex = parent.index {
                records[parentIndex].childComponents.remove(component)
            } else {
                rootComponents.remove(component)
            }
            issue(path, rule: "R2", "the object already appears at \(records[seen].path); a tree has no cycles, so it is saved once")
            return nil
        }
        records.append(Record(object: object, path: path, kind: kind))
        return Parent(path: path, index: index)
    }

    /// Walks the children and presented objects `list_objects` gives for
    /// `object`, recorded at `own`.
    private func visitListedChildren(of object: ReportedObject, own: Parent, context: Parent) {
        let children: [ReportedObject]
        do {
            children = try session.listObjects(under: object.handle)
        } catch {
            omit(own.path, rule: "R2", "its children could not be listed (\(error)); they are not saved")
            return
        }
        // Reserved for the children listed, not grown one by one (objects
        // presented under it or referenced from it may still grow it).
        if !children.isEmpty, let index = own.index { records[index].childComponents.reserveCapacity(children.count) }
        var childPosition: Int64 = 0
        for child in children where !child.isPresented {
            let position = object.disambiguatesChildren ? childPosition : nil
            childPosition += 1
            visit(child, parent: own, position: position, kind: .child, context: context)
        }
        for presented in children where presented.isPresented {
            visit(presented, parent: context, position: nil, kind: .presented, context: context)
        }
    }

    /// The path stored for a reference to `handle` from the object at `owner`.
    ///
    /// An object outside the preserved tree is saved by hand (R14): it hangs
    /// under `owner`, with its subtree.
    private func referencePath(for handle: ObjectHandle, owner: Parent) -> ObjectPath? {
        if let index = recordsByHandle[handle] { return records[index].path }
        guard let object = try? session.describe(handle), !object.identifier.isEmpty else {
            issue(owner.index == nil ? nil : owner.path, rule: "R14", "a referenced object has no restoration identifier; the reference is refused")
            return nil
        }
        return visit(object, parent: owner, position: nil, kind: .manual, context: owner.index == nil ? nil : owner)
    }

    // MARK: Encoding

    private func encode(at index: Int, total: inout Int) {
        // The path is copied only where it is needed: most saves drop and
        // carry nothing.
        if !droppedRoots.isEmpty || !carriedRoots.isEmpty {
            let path = records[index].path
            if isUnderDroppedObject(path) || carriedRoots.contains(where: { path.isUnder($0) }) {
                // Left out with its parent, or carried with it from the last archive.
                records[index].isDropped = true
                return
            }
        }
        encodingOwner = index
        let coder = objectCoder
        coder.reset()
        do {
            try session.encode(records[index].object.handle, into: coder)
        } catch {
            if coder.exceededBudget {
                drop(index, rule: "R13", "\(coder.refusal ?? "its state exceeds the object budget of \(configuration.objectByteBudget) bytes"); it and its subtree are not saved")
            } else {
                // The host's own words name the key a C plugin's bare status does not.
                let cause = coder.refusal ?? "\(error)"
                drop(index, rule: "R5", "encoding failed: \(cause); it and its subtree are not saved")
            }
            return
        }
        if coder.carriesOver {
            records[index].isCarried = true
            carriedRoots.append(records[index].path)
            return
        }
        if coder.exceededBudget {
            drop(index, rule: "R13", "its state exceeds the object budget of \(configuration.objectByteBudget) bytes; it and its subtree are not saved")
            return
        }
        let size = coder.writer.count
        if let refusal = coder.refusal {
            // The plugin ignored a refused value and went on: the object is
            // saved without it, and the save says so (R5, R14).
            omit(records[index].path, rule: "R5", "a value was refused and is not saved: \(refusal); the rest of the object is saved")
        }
        guard total + size <= configuration.appByteBudget else {
            drop(index, rule: "R13", "the app's budget of \(configuration.appByteBudget) bytes is used up; it and its subtree are not saved")
            return
        }
        total += size
        records[index].state = coder.bytesCopy
    }

    private func drop(_ index: Int, rule: String, _ message: String) {
        records[index].isDropped = true
        droppedRoots.append(records[index].path)
        omit(records[index].path, rule: rule, message)
    }

    /// Records a loss of this save (the object at `path` or, nil, the
    /// app-wide state): the archive is partial, and the issue says why.
    private func omit(_ path: ObjectPath?, rule: String, _ message: String) {
        let named = message.contains("(\(rule))") ? message : "\(message) (\(rule))"
        report.droppedObjects.append(OmittedObject(path: path ?? ObjectPath(), reason: named))
        issue(path, rule: rule, message)
    }

    private func isUnderDroppedObject(_ path: ObjectPath) -> Bool {
        droppedRoots.contains { dropped in
            dropped.depth < path.depth && Array(path.components.prefix(dropped.depth)) == dropped.components
        }
    }

    private func issue(_ path: ObjectPath?, rule: String?, _ message: String) {
        report.issues.append(EngineIssue(appID: appID, path: path, rule: rule, message: message))
    }

    private func fail(_ message: String) -> (archive: Archive?, report: PreservationReport) {
        issue(nil, rule: nil, message)
        report.outcome = .failed(message)
        return (nil, report)
    }
}
