internal import CRestoredPlugin
internal import RestoredState
import FoundationEssentials
import Glibc
import Synchronization

/// Exports a Swift ``RestorationPlugin`` through the C ABI (`restored/plugin.h`).
public enum PluginExport {
    /// A registered plugin type. Unchecked: the descriptor is immutable and
    /// lives as long as the process, and the closures only create instances.
    private struct Registration: @unchecked Sendable {
        let descriptor: UnsafeRawPointer
        let make: (PluginContext) throws -> any RestorationPlugin
        let restorationClasses: () -> [any RestorationClass.Type]
    }

    private struct Registry: @unchecked Sendable {
        var byType: [ObjectIdentifier: Registration] = [:]
        var byDescriptor: [UnsafeRawPointer: Registration] = [:]
    }

    private static let registry = Mutex(Registry())

    /// The descriptor of `plugin`, built once and kept for the life of the
    /// process. Return it from the exported `restored_plugin_v1` function.
    public static func descriptor<Plugin: RestorationPlugin>(for plugin: Plugin.Type) -> UnsafeRawPointer {
        registry.withLock { registry in
            if let existing = registry.byType[ObjectIdentifier(plugin)] { return existing.descriptor }
            let descriptor = makeDescriptor(
                appID: Plugin.appID, appVersion: Plugin.appVersion, displayName: Plugin.displayName, traits: Plugin.traits
            )
            let registration = Registration(
                descriptor: descriptor,
                make: { context in try Plugin(context: context) },
                restorationClasses: { Plugin.restorationClasses }
            )
            registry.byType[ObjectIdentifier(plugin)] = registration
            registry.byDescriptor[descriptor] = registration
            return descriptor
        }
    }

    private static func registration(for descriptor: UnsafeRawPointer) -> Registration? {
        registry.withLock { $0.byDescriptor[descriptor] }
    }

    private static func makeDescriptor(appID: String, appVersion: String, displayName: String, traits: PluginTraits) -> UnsafeRawPointer {
        let descriptor = UnsafeMutablePointer<restored_plugin_descriptor>.allocate(capacity: 1)
        var table = restored_plugin_descriptor()
        table.abi_version = RESTORED_PLUGIN_ABI_VERSION
        table.struct_size = UInt32(MemoryLayout<restored_plugin_descriptor>.size)
        table.app_id = UnsafePointer(strdup(appID))
        table.app_version = UnsafePointer(strdup(appVersion))
        table.display_name = UnsafePointer(strdup(displayName))
        table.traits = traits.rawValue
        table.create = { descriptor, host, hostContext, options, optionCount in
            guard let descriptor, let host, let hostContext else { return nil }
            guard let registration = PluginExport.registration(for: UnsafeRawPointer(descriptor)) else {
                var message = "this descriptor was not made by PluginExport.descriptor(for:); export the plugin with it"
                message.withUTF8 { host.pointee.set_error(hostContext, StateCoder.cString($0)) }
                return nil
            }
            var settings: [String: String] = [:]
            if let options {
                for index in 0..<optionCount {
                    settings[CValues.swiftString(options[index].key)] = CValues.swiftString(options[index].value)
                }
            }
            let context = PluginContext(host: host, hostContext: hostContext, options: settings)
            do {
                let plugin = try registration.make(context)
                let box = PluginInstanceBox(plugin: plugin, context: context, restorationClasses: registration.restorationClasses())
                return Unmanaged.passRetained(box).toOpaque()
            } catch {
                var message = "the plugin could not start: \(error)"
                message.withUTF8 { host.pointee.set_error(hostContext, StateCoder.cString($0)) }
                return nil
            }
        }
        table.destroy = { instance in
            guard let instance else { return }
            Unmanaged<PluginInstanceBox>.fromOpaque(instance).release()
        }
        table.end_walk = { instance in PluginExport.box(instance)?.endWalk() }
        table.should_save_application_state = { instance, appCoder, result in
            PluginExport.run(instance) { box in
                guard let coder = box.coder(box.context.host, appCoder), let result else { throw StateCoderError.invalidHostArgument("no coder") }
                // Only a host without save_decision calls this: the plugin's
                // three answers, in the two this host knows.
                switch try box.plugin.saveDecision(coder: coder) {
                case .save: result.pointee = true
                case .decline: result.pointee = false
                case .keepLastArchive: throw KeepLastArchiveError()
                }
                try coder.flush()
            }
        }
        table.save_decision = { instance, appCoder, decision in
            PluginExport.run(instance) { box in
                guard let coder = box.coder(box.context.host, appCoder), let decision else { throw StateCoderError.invalidHostArgument("no coder") }
                decision.pointee = try box.plugin.saveDecision(coder: coder).rawValue
                try coder.flush()
            }
        }
        table.will_encode_restorable_state = { instance, appCoder in
            PluginExport.run(instance) { box in
                guard let coder = box.coder(box.context.host, appCoder) else { return }
                try box.plugin.willEncodeRestorableState(with: coder)
                try coder.flush()
            }
        }
        table.list_objects = { instance, parent, sink in
            PluginExport.run(instance) { box in
                if let parent {
                    guard let object = box.object(for: parent) else { throw StateCoderError.invalidHostArgument("a parent object") }
                    for child in object.restorationChildren { try PluginExport.report(child, flags: 0, box: box, sink: sink) }
                    for presented in object.presentedObjects {
                        try PluginExport.report(presented, flags: RESTORED_OBJECT_PRESENTED.rawValue, box: box, sink: sink)
                    }
                } else {
                    for root in box.plugin.rootObjects { try PluginExport.report(root, flags: 0, box: box, sink: sink) }
                }
            }
        }
        table.list_tree = { instance, sink in
            PluginExport.run(instance) { box in
                // A host calls list_tree only when it knows the field, and
                // then has tree_add; a broken one gets an error, not a crash.
                guard box.context.hostCovers(\.tree_add) else { throw StateCoderError.invalidHostArgument("a host without tree_add") }
                try PluginExport.reportTree(box: box, sink: sink)
            }
        }
        table.encode_object = { instance, object, coder in
            PluginExport.run(instance) { box in
                guard let object = object.flatMap(box.object(for:)), let coder = box.coder(box.context.host, coder) else {
                    throw StateCoderError.invalidHostArgument("an object or coder")
                }
                try object.encodeRestorableState(with: coder)
                try coder.flush()
            }
        }
        table.will_take_snapshot = { instance in
            PluginExport.run(instance) { box in box.plugin.willTakeSnapshot() }
        }
        table.take_snapshot = { instance, sink in
            PluginExport.run(instance) { box in
                guard let snapshot = box.plugin.snapshot() else { return }
                var mediaType = snapshot.mediaType
                let status = mediaType.withUTF8 { type in
                    snapshot.data.withUnsafeBytes { data in
                        box.context.host.pointee.snapshot_set(sink, StateCoder.cString(type), data.baseAddress, data.count)
                    }
                }
                guard status == RESTORED_OK else { throw StateCoder.error(status, key: "snapshot") }
            }
        }
        table.should_restore_application_state = { instance, appCoder, result in
            PluginExport.run(instance) { box in
                guard let coder = box.coder(box.context.host, appCoder), let result else { throw StateCoderError.invalidHostArgument("no coder") }
                result.pointee = box.plugin.shouldRestoreApplicationState(coder: coder)
            }
        }
        table.present_snapshot = { instance, mediaType, data, length in
            PluginExport.run(instance) { box in
                let bytes = data.map { Data(bytes: $0, count: length) } ?? Data()
                box.plugin.present(RestorationSnapshot(mediaType: CValues.swiftString(mediaType), data: bytes))
            }
        }
        table.object_from_restoration_class = { instance, className, path, coder, result in
            PluginExport.run(instance) { box in
                guard let result else { return }
                result.pointee = nil
                let name = CValues.swiftString(className)
                guard let restorationClass = box.restorationClasses[name] else { throw UnknownRestorationClassError(name: name) }
                guard let coder = box.coder(box.context.host, coder) else { return }
                if let object = restorationClass.object(withRestorationIdentifierPath: PluginInstanceBox.path(path), coder: coder) {
                    result.pointee = box.handle(for: object)
                }
            }
        }
        table.object_from_delegate = { instance, path, coder, result in
            PluginExport.run(instance) { box in
                guard let result else { return }
                result.pointee = nil
                // The default lookup provides nothing: no path or coder for it.
                guard !box.hasDefaultDelegateLookup else { return }
                guard let coder = box.coder(box.context.host, coder) else { return }
                if let object = box.plugin.object(forRestorationIdentifierPath: PluginInstanceBox.path(path), coder: coder) {
                    result.pointee = box.handle(for: object)
                }
            }
        }
        table.registered_object = { instance, path, result in
            PluginExport.run(instance) { box in
                guard let result else { return }
                // Most plugins register nothing: no path is read for them.
                guard !box.context.registeredObjects.isEmpty else {
                    result.pointee = nil
                    return
                }
                result.pointee = box.context.registeredObjects.object(at: path).map { box.handle(for: $0) }
            }
        }
        table.describe_object = { instance, object, sink in
            PluginExport.run(instance) { box in
                guard let object = object.flatMap(box.object(for:)) else { throw StateCoderError.invalidHostArgument("an object or coder") }
                try PluginExport.report(object, flags: 0, box: box, sink: sink)
            }
        }
        table.restore_identity = { instance, object, identifier, restorationClass in
            PluginExport.run(instance) { box in
                guard let object = object.flatMap(box.object(for:)) else { throw StateCoderError.invalidHostArgument("an object or coder") }
                object.restorationIdentifier = CValues.swiftString(identifier)
                let className = CValues.swiftString(restorationClass)
                if !className.isEmpty, let type = box.restorationClasses[className] {
                    object.restorationClass = type
                }
            }
        }
        table.decode_object = { instance, object, coder in
            PluginExport.run(instance) { box in
                guard let object = object.flatMap(box.object(for:)), let coder = box.coder(box.context.host, coder) else {
                    throw StateCoderError.invalidHostArgument("an object or coder")
                }
                try object.decodeRestorableState(with: coder)
            }
        }
        table.finished_restoring_state = { instance, object in
            PluginExport.run(instance) { box in
                guard let object = object.flatMap(box.object(for:)) else { throw StateCoderError.invalidHostArgument("an object or coder") }
                object.finishedRestoringState()
            }
        }
        table.did_decode_restorable_state = { instance, appCoder in
            PluginExport.run(instance) { box in
                guard let coder = box.coder(box.context.host, appCoder) else { return }
                try box.plugin.didDecodeRestorableState(with: coder)
            }
        }
        table.restoration_did_finish = { instance in
            PluginExport.run(instance) { box in box.plugin.restorationDidFinish() }
        }
        descriptor.initialize(to: table)
        return UnsafeRawPointer(descriptor)
    }

    private static func box(_ instance: UnsafeMutableRawPointer?) -> PluginInstanceBox? {
        instance.map { Unmanaged<PluginInstanceBox>.fromOpaque($0).takeUnretainedValue() }
    }

    /// Runs a callback body, turning a thrown error into a status and a message for the host.
    private static func run(_ instance: UnsafeMutableRawPointer?, _ body: (PluginInstanceBox) throws -> Void) -> restored_status {
        guard let box = box(instance) else { return RESTORED_ERROR_INVALID_ARGUMENT }
        let mark = box.lentBufferCount
        defer { box.recycleCoders(from: mark) }
        do {
            try body(box)
            return RESTORED_OK
        } catch {
            var message = String(describing: error)
            message.withUTF8 { box.context.host.pointee.set_error(box.context.hostContext, StateCoder.cString($0)) }
            return RESTORED_ERROR_FAILED
        }
    }

    /// Reports the plugin's whole tree to the host, each object with
    /// `tree_add` under its parent's report number (`list_tree`).
    ///
    /// Breadth first: each object's children, then its presented objects,
    /// in their order, once the object itself is reported. The subtree of an
    /// object without identifier is left out (R1, R2). An object met again
    /// is reported with RESTORED_OBJECT_CHILDREN_UNLISTED and without its
    /// subtree, so a cycle ends (R2).
    private static func reportTree(box: PluginInstanceBox, sink: OpaquePointer?) throws {
        // The objects whose children are still to report, with their report numbers.
        var pending: [(object: any RestorableObject, number: UInt64)] = []
        var next = 0
        var reported: UInt64 = 0
        // By handle (an object's index in the box): listed in this tree already.
        var listed: [Bool] = []
        func add(_ object: any RestorableObject, flags: UInt32, parent: UInt64) throws {
            let handle = box.handle(for: object)
            let slot = Int(bitPattern: UnsafeRawPointer(handle)) - 1
            if slot >= listed.count { listed.append(contentsOf: repeatElement(false, count: slot + 1 - listed.count)) }
            var flags = flags
            let identifier = object.restorationIdentifier ?? ""
            if !identifier.isEmpty {
                if listed[slot] {
                    flags |= RESTORED_OBJECT_CHILDREN_UNLISTED.rawValue
                } else {
                    listed[slot] = true
                    pending.append((object, reported))
                }
            }
            try report(object, identifier: identifier, handle: handle, flags: flags, box: box, sink: sink, parent: parent)
            reported += 1
        }
        for root in box.plugin.rootObjects { try add(root, flags: 0, parent: RESTORED_TREE_ROOT) }
        while next < pending.count {
            let (object, number) = pending[next]
            next += 1
            for child in object.restorationChildren { try add(child, flags: 0, parent: number) }
            for presented in object.presentedObjects { try add(presented, flags: RESTORED_OBJECT_PRESENTED.rawValue, parent: number) }
        }
    }

    /// Reports one object with its info to a sink.
    private static func report(_ object: any RestorableObject, flags: UInt32, box: PluginInstanceBox, sink: OpaquePointer?) throws {
        try report(object, identifier: object.restorationIdentifier ?? "", handle: box.handle(for: object), flags: flags, box: box, sink: sink, parent: nil)
    }

    /// Reports one object with its info: with `sink_add`, or with
    /// `tree_add` under the object reported `parent`-th when it is set.
    private static func report(
        _ object: any RestorableObject, identifier: String, handle: OpaquePointer, flags: UInt32, box: PluginInstanceBox, sink: OpaquePointer?,
        parent: UInt64?
    ) throws {
        var flags = flags
        if object.definesPresentationContext { flags |= RESTORED_OBJECT_DEFINES_PRESENTATION_CONTEXT.rawValue }
        if object.disambiguatesChildren { flags |= RESTORED_OBJECT_DISAMBIGUATES_CHILDREN.rawValue }
        var identifier = identifier
        var className = object.restorationClassName
        var restorationClass = object.restorationClass?.restorationClassName ?? ""
        let status = identifier.withUTF8 { identifier in
            className.withUTF8 { className in
                restorationClass.withUTF8 { restorationClass in
                    var info = restored_object_info()
                    info.struct_size = UInt32(MemoryLayout<restored_object_info>.size)
                    info.flags = flags
                    info.identifier = StateCoder.cString(identifier)
                    info.class_name = StateCoder.cString(className)
                    info.restoration_class = StateCoder.cString(restorationClass)
                    if let parent { return box.context.host.pointee.tree_add(sink, parent, handle, &info) }
                    return box.context.host.pointee.sink_add(sink, handle, &info)
                }
            }
        }
        guard status == RESTORED_OK else { throw StateCoder.error(status, key: "object \(identifier)") }
    }
}

/// The address of the SDK's own type metadata.
///
/// Each image that carried its own copy of the SDK would answer differently;
/// a process that loads several plugins uses it to check that they all share
/// one `libRestorationKit.so`.
@_cdecl("restoration_kit_identity")
public func restorationKitIdentity() -> UnsafeRawPointer {
    unsafeBitCast(PluginInstanceBox.self as AnyClass, to: UnsafeRawPointer.self)
}
