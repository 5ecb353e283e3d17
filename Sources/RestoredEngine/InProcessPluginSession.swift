internal import CRestoredHostSupport
internal import CRestoredPlugin
import Logging
public import RestoredArchive
public import RestoredState

/// A plugin instance living in this process, called through `restored/plugin.h`.
public final class InProcessPluginSession: PluginSession {
    /// The loaded plugin.
    public let plugin: LoadedPlugin
    private let context: SessionContext
    private let instance: UnsafeMutableRawPointer
    /// The plugin's callbacks, read once (the descriptor never changes).
    private let table: restored_plugin_descriptor
    /// Where ``describe(_:)`` collects the object the plugin reports.
    private let describeSink = ObjectSink()
    /// How many objects the last tree in one call had: the next one's
    /// tables are reserved for as many (an app's tree changes little from
    /// one save to the next).
    private var lastTreeSize = 0
    /// Whether ``listTree()`` calls the plugin's `list_tree` when it has
    /// one (the default); false lists every tree object by object, as for
    /// a plugin without it. Both contracts keep the same rules, and the
    /// rules' tests run through both.
    public var listsTreeInOneCall = true
    /// Whether `list_tree` failed once in this instance.
    private var listTreeFailed = false

    init(plugin: LoadedPlugin, options: [String: String], logger: Logger) throws(PluginCallError) {
        self.plugin = plugin
        let context = SessionContext(appID: plugin.appID, logger: logger)
        self.context = context
        self.table = plugin.descriptor.pointee
        let create = plugin.descriptor.pointee.create
        var arena: [UnsafeMutablePointer<CChar>] = []
        defer { arena.forEach { free($0) } }
        func text(_ string: String) -> restored_string {
            let copy = strdup(string)!
            arena.append(copy)
            return restored_string(data: copy, length: strlen(copy))
        }
        let cOptions = options.sorted { $0.key < $1.key }.map { restored_option(key: text($0.key), value: text($0.value)) }
        let created = Self.marking("create") {
            cOptions.withUnsafeBufferPointer { buffer in
                create?(plugin.pluginDescriptor, HostFunctions.table, context.cPointer, buffer.baseAddress, buffer.count)
            }
        }
        guard let created else {
            throw PluginCallError(callback: "create", status: RESTORED_ERROR_FAILED, message: context.lastError)
        }
        instance = created
    }

    deinit {
        Self.marking("destroy") { table.destroy?(instance) }
    }

    /// The app.
    public var appID: AppID { plugin.appID }
    /// The app version.
    public var appVersion: String { plugin.appVersion }
    /// The plugin's file name.
    public var pluginName: String { plugin.file.lastComponent?.string ?? plugin.file.string }
    /// Whether the plugin asked to ignore the snapshot at the next launch (R12).
    public var ignoreSnapshotRequested: Bool { context.ignoreSnapshotRequested }
    /// When the next walks must be over: what the plugin reads as the time
    /// left in its walk (`walk_time_left`); nil for no deadline.
    public var walkDeadline: ContinuousClock.Instant? {
        get { context.walkDeadline }
        set { context.walkDeadline = newValue }
    }

    /// Sets the phase; a new preservation clears the archive flags.
    public func begin(_ phase: SessionPhase) {
        context.phase = phase
        if case .preserving = phase { context.ignoreSnapshotRequested = false }
    }

    /// Lets the plugin release its handles.
    public func endWalk() {
        Self.marking("end_walk") { table.end_walk?(instance) }
        context.phase = .idle
    }

    // MARK: Preservation

    /// R6: `save_decision` when the plugin has it, otherwise
    /// `should_save_application_state`'s yes or no. A decision this host
    /// does not know fails the save (the archive is kept).
    public func saveDecision(_ coder: EncodingCoder) throws(PluginCallError) -> SaveDecision {
        if let saveDecision = table.save_decision {
            var raw: UInt32 = 0
            try call("save_decision") { saveDecision(instance, coder.cPointer, &raw) }
            guard let decision = SaveDecision(rawValue: raw) else {
                throw PluginCallError(callback: "save_decision", status: RESTORED_ERROR_INVALID_ARGUMENT, message: "answered \(raw), which is no restored_save_decision (1 save, 2 decline, 3 keep)")
            }
            return decision
        }
        var result = false
        try call("should_save_application_state") { table.should_save_application_state?(instance, coder.cPointer, &result) }
        return result ? .save : .decline
    }

    /// R6, R14.
    public func willEncodeRestorableState(_ coder: EncodingCoder) throws(PluginCallError) {
        try call("will_encode_restorable_state") { table.will_encode_restorable_state?(instance, coder.cPointer) }
    }

    /// R2, R4.
    public func listObjects(under parent: ObjectHandle?) throws(PluginCallError) -> [ReportedObject] {
        let sink = ObjectSink()
        try call("list_objects") { table.list_objects?(instance, parent?.pointer, sink.cPointer) }
        return sink.objects
    }

    /// R1-R4: `list_tree`, when the plugin has it and
    /// ``listsTreeInOneCall``, until it fails once: a tree the host refused
    /// a report of fails it too, whatever the plugin answers. After a
    /// failure this instance lists object by object, which loses nothing,
    /// rather than paying for both listings at every save.
    public func listTree() throws(PluginCallError) -> ReportedTree? {
        guard listsTreeInOneCall, !listTreeFailed, let listTree = table.list_tree else { return nil }
        let sink = ObjectSink(.tree)
        sink.objects.reserveCapacity(lastTreeSize)
        sink.parents.reserveCapacity(lastTreeSize)
        do throws(PluginCallError) {
            try call("list_tree") { listTree(instance, sink.cPointer) }
            if let refusal = sink.treeRefusal {
                throw PluginCallError(callback: "list_tree", status: RESTORED_ERROR_INVALID_ARGUMENT, message: refusal)
            }
        } catch {
            listTreeFailed = true
            // The host's words name the report; the plugin's status alone does not.
            guard let refusal = sink.treeRefusal else { throw error }
            throw PluginCallError(callback: "list_tree", status: error.status, message: refusal)
        }
        lastTreeSize = sink.objects.count
        return ReportedTree(objects: sink.objects, parents: sink.parents)
    }

    /// R5.
    public func encode(_ object: ObjectHandle, into coder: EncodingCoder) throws(PluginCallError) {
        try call("encode_object") { table.encode_object?(instance, object.pointer, coder.cPointer) }
    }

    /// R12.
    public func willTakeSnapshot() throws(PluginCallError) {
        try call("will_take_snapshot") { table.will_take_snapshot?(instance) }
    }

    /// R12.
    public func takeSnapshot() throws(PluginCallError) -> Snapshot? {
        let sink = SnapshotSink()
        try call("take_snapshot") { table.take_snapshot?(instance, sink.cPointer) }
        return sink.snapshot
    }

    // MARK: Restoration

    /// R7.
    public func shouldRestoreApplicationState(_ coder: DecodingCoder) throws(PluginCallError) -> Bool {
        guard table.should_restore_application_state != nil else { return true }
        var result = false
        try call("should_restore_application_state") { table.should_restore_application_state?(instance, coder.cPointer, &result) }
        return result
    }

    /// R12.
    public func presentSnapshot(_ snapshot: Snapshot) throws(PluginCallError) {
        var mediaType = snapshot.mediaType
        try call("present_snapshot") {
            mediaType.withUTF8 { type in
                snapshot.data.withUnsafeBytes { data in
                    table.present_snapshot?(instance, Self.cString(type), data.baseAddress, data.count)
                }
            }
        }
    }

    /// R8 step 1.
    public func objectFromRestorationClass(_ restorationClass: String, path: ObjectPath, coder: DecodingCoder) throws(PluginCallError) -> ObjectHandle? {
        var result: OpaquePointer?
        var name = restorationClass
        try call("object_from_restoration_class") {
            name.withUTF8 { name in
                Self.withCPath(path) { cPath in
                    table.object_from_restoration_class?(instance, Self.cString(name), cPath, coder.cPointer, &result)
                }
            }
        }
        return result.map(ObjectHandle.init)
    }

    /// R8 step 2.
    public func objectFromDelegate(path: ObjectPath, coder: DecodingCoder) throws(PluginCallError) -> ObjectHandle? {
        var result: OpaquePointer?
        try call("object_from_delegate") {
            Self.withCPath(path) { cPath in table.object_from_delegate?(instance, cPath, coder.cPointer, &result) }
        }
        return result.map(ObjectHandle.init)
    }

    /// R8 step 3.
    public func registeredObject(at path: ObjectPath) throws(PluginCallError) -> ObjectHandle? {
        var result: OpaquePointer?
        try call("registered_object") {
            Self.withCPath(path) { cPath in table.registered_object?(instance, cPath, &result) }
        }
        return result.map(ObjectHandle.init)
    }

    /// R8 steps 2 and 3 with one C path for both calls: most objects of a
    /// restore are asked for twice, and building the path was a tenth of
    /// the restoration walk.
    public func objectFromDelegateOrRegistry(at path: ObjectPath, coder: DecodingCoder) throws(PluginCallError) -> (handle: ObjectHandle, fromDelegate: Bool)? {
        var result: OpaquePointer?
        var fromDelegate = false
        let outcome: Result<Void, PluginCallError> = Self.withCPath(path) { cPath in
            do throws(PluginCallError) {
                try call("object_from_delegate") { table.object_from_delegate?(instance, cPath, coder.cPointer, &result) }
                if result != nil {
                    fromDelegate = true
                    return .success(())
                }
                try call("registered_object") { table.registered_object?(instance, cPath, &result) }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
        return result.map { (ObjectHandle($0), fromDelegate) }
    }

    /// R10.
    public func describe(_ object: ObjectHandle) throws(PluginCallError) -> ReportedObject {
        // One sink for every description (the walks describe each object
        // they restore, R10): describe_object reports one object and calls
        // nothing back, so no description runs inside another.
        let sink = describeSink
        sink.objects.removeAll(keepingCapacity: true)
        try call("describe_object") { table.describe_object?(instance, object.pointer, sink.cPointer) }
        guard let reported = sink.objects.first else {
            throw PluginCallError(callback: "describe_object", status: RESTORED_ERROR_FAILED, message: "the plugin described nothing")
        }
        return reported
    }

    /// R8.
    public func restoreIdentity(of object: ObjectHandle, identifier: String, restorationClass: String?) throws(PluginCallError) {
        var identifier = identifier
        var className = restorationClass ?? ""
        try call("restore_identity") {
            identifier.withUTF8 { identifier in
                className.withUTF8 { className in
                    table.restore_identity?(instance, object.pointer, Self.cString(identifier), Self.cString(className))
                }
            }
        }
    }

    /// R9.
    public func decode(_ object: ObjectHandle, from coder: DecodingCoder) throws(PluginCallError) {
        try call("decode_object") { table.decode_object?(instance, object.pointer, coder.cPointer) }
    }

    /// R9.
    public func finishedRestoringState(_ object: ObjectHandle) throws(PluginCallError) {
        try call("finished_restoring_state") { table.finished_restoring_state?(instance, object.pointer) }
    }

    /// R9.
    public func didDecodeRestorableState(_ coder: DecodingCoder) throws(PluginCallError) {
        try call("did_decode_restorable_state") { table.did_decode_restorable_state?(instance, coder.cPointer) }
    }

    /// R9.
    public func restorationDidFinish() throws(PluginCallError) {
        try call("restoration_did_finish") { table.restoration_did_finish?(instance) }
    }

    // MARK: Calling

    /// Calls a callback; a missing optional callback counts as success.
    /// The callback's name is marked as the one running, for the crash
    /// report of a plugin host (a pointer store, nothing more).
    private func call(_ name: StaticString, _ body: () -> restored_status?) throws(PluginCallError) {
        if context.lastError != nil { context.lastError = nil }
        let status = Self.marking(name) { body() ?? RESTORED_OK }
        guard status == RESTORED_OK else {
            throw PluginCallError(callback: "\(name)", status: status, message: context.lastError)
        }
    }

    /// Runs `body` with `name` marked as the plugin callback running.
    static func marking<R>(_ name: StaticString, _ body: () -> R) -> R {
        name.utf8Start.withMemoryRebound(to: CChar.self, capacity: name.utf8CodeUnitCount) { c_restored_set_current_callback($0) }
        defer { c_restored_set_current_callback(nil) }
        return body()
    }

    private static func cString(_ utf8: UnsafeBufferPointer<UInt8>) -> restored_string {
        restored_string(data: UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self), length: utf8.count)
    }

    /// Lends the C form of a path to `body`.
    private static func withCPath<R>(_ path: ObjectPath, _ body: (UnsafePointer<restored_path>) -> R) -> R {
        // Called for most objects of a restore (once for the delegate and
        // the registered objects together): the identifiers' bytes and the
        // components go to one temporary buffer each (on the stack when
        // small), not an array per component.
        let components = path.components
        let byteCount = components.reduce(0) { $0 + $1.identifier.utf8.count }
        return withUnsafeTemporaryAllocation(of: restored_path_component.self, capacity: max(components.count, 1)) { cComponents in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(byteCount, 1)) { storage in
                var offset = 0
                for (index, component) in components.enumerated() {
                    let written = UnsafeMutableBufferPointer(rebasing: storage[offset...]).initialize(fromContentsOf: component.identifier.utf8)
                    let identifier = restored_string(
                        data: UnsafeRawPointer(storage.baseAddress! + offset).assumingMemoryBound(to: CChar.self), length: written
                    )
                    (cComponents.baseAddress! + index).initialize(to: restored_path_component(identifier: identifier, position: component.position ?? -1))
                    offset += written
                }
                var cPath = restored_path(components: UnsafePointer(cComponents.baseAddress!), count: components.count)
                return body(&cPath)
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
