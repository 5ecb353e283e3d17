internal import CRestoredPlugin

/// One live plugin instance as the C callbacks see it.
///
/// A handle given to the host is the object's index in this walk plus one,
/// never an address: the box keeps each object alive until `end_walk`, and a
/// stray handle from the host is out of range, never dereferenced.
final class PluginInstanceBox {
    let plugin: any RestorationPlugin
    let context: PluginContext
    let restorationClasses: [String: any RestorationClass.Type]
    private var objects: [any RestorableObject] = []
    private var indices: [ObjectIdentifier: Int] = [:]
    /// How many handles the last walk gave out: the next walk's tables are
    /// made that size at its first handle, not grown to it (an app's tree
    /// changes little from one walk to the next).
    private var lastWalkSize = 0
    /// Coder buffers, reused from one callback to the next.
    private var spareBuffers: [CoderBuffer] = []
    private var buffersInUse: [CoderBuffer] = []
    /// Whether the plugin keeps the SDK's default delegate lookup (R8 step
    /// 2), which provides nothing: learnt when the default first runs on
    /// the plugin itself (which conformance a type has does not change),
    /// after which the host's lookups are answered without building a path
    /// and a coder.
    var hasDefaultDelegateLookup = false

    init(plugin: any RestorationPlugin, context: PluginContext, restorationClasses: [any RestorationClass.Type]) {
        self.plugin = plugin
        self.context = context
        var classes: [String: any RestorationClass.Type] = [:]
        for restorationClass in restorationClasses {
            classes[restorationClass.restorationClassName] = restorationClass
        }
        self.restorationClasses = classes
    }

    /// The handle of an object (the same for the same object during a walk),
    /// which keeps it alive until ``endWalk()``.
    func handle(for object: any RestorableObject) -> OpaquePointer {
        let identifier = ObjectIdentifier(object)
        if objects.isEmpty, lastWalkSize > 0 {
            objects.reserveCapacity(lastWalkSize)
            indices.reserveCapacity(lastWalkSize)
        }
        if let index = indices[identifier] { return OpaquePointer(bitPattern: index + 1)! }
        objects.append(object)
        indices[identifier] = objects.count - 1
        return OpaquePointer(bitPattern: objects.count)!
    }

    /// The object of a handle this box gave out during this walk, or nil.
    func object(for handle: OpaquePointer) -> (any RestorableObject)? {
        let index = Int(bitPattern: UnsafeRawPointer(handle)) - 1
        guard index >= 0, index < objects.count else { return nil }
        return objects[index]
    }

    /// Releases every handle, and the tables' memory: a host idles between
    /// walks far longer than a walk takes to build them again.
    func endWalk() {
        if !objects.isEmpty { lastWalkSize = objects.count }
        objects = []
        indices = [:]
    }

    /// A coder for one callback; ``recycleCoders()`` takes its buffer back.
    func coder(_ host: UnsafePointer<restored_host_functions>, _ coder: OpaquePointer?) -> StateCoder? {
        guard let coder else { return nil }
        let buffer = spareBuffers.popLast() ?? CoderBuffer()
        buffersInUse.append(buffer)
        return StateCoder(host: host, coder: coder, instance: self, buffer: buffer)
    }

    /// How many coder buffers are lent out now (see ``recycleCoders(from:)``).
    var lentBufferCount: Int { buffersInUse.count }

    /// Takes back the buffers lent since `mark`: those of the callback that
    /// ends, not those of a callback it is nested in (the host may call
    /// describe_object while the plugin is in encode_entries).
    func recycleCoders(from mark: Int) {
        guard buffersInUse.count > mark else { return }
        for buffer in buffersInUse[mark...] {
            buffer.reset()
            if spareBuffers.count < 4 { spareBuffers.append(buffer) }
        }
        buffersInUse.removeSubrange(mark...)
    }

    /// The path the host passed, in Swift.
    static func path(_ path: UnsafePointer<restored_path>?) -> RestorationPath {
        guard let path, let components = path.pointee.components else { return RestorationPath([]) }
        return RestorationPath((0..<path.pointee.count).map { index in
            let component = components[index]
            return RestorationPath.Component(
                CValues.swiftString(component.identifier),
                position: component.position >= 0 ? Int(component.position) : nil
            )
        })
    }
}
