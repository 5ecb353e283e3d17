internal import CRestoredPlugin

/// One live plugin instance as the C callbacks see it.
///
/// Handles given to the host are the objects' addresses; the box keeps each
/// object alive until `end_walk`, and only turns back into objects the
/// handles it gave out, so a stray pointer from the host is never
/// dereferenced.
final class PluginInstanceBox {
    let plugin: any RestorationPlugin
    let context: PluginContext
    let restorationClasses: [String: any RestorationClass.Type]
    private var handles: [OpaquePointer: any RestorableObject] = [:]

    init(plugin: any RestorationPlugin, context: PluginContext, restorationClasses: [any RestorationClass.Type]) {
        self.plugin = plugin
        self.context = context
        var classes: [String: any RestorationClass.Type] = [:]
        for restorationClass in restorationClasses {
            classes[restorationClass.restorationClassName] = restorationClass
        }
        self.restorationClasses = classes
    }

    /// The handle of an object, kept alive until ``endWalk()``.
    func handle(for object: any RestorableObject) -> OpaquePointer {
        let handle = OpaquePointer(Unmanaged.passUnretained(object as AnyObject).toOpaque())
        handles[handle] = object
        return handle
    }

    /// The object of a handle this box gave out, or nil.
    func object(for handle: OpaquePointer) -> (any RestorableObject)? {
        handles[handle]
    }

    /// Releases every handle.
    func endWalk() {
        handles.removeAll(keepingCapacity: true)
    }

    func coder(_ host: UnsafePointer<restored_host_functions>, _ coder: OpaquePointer?) -> StateCoder? {
        coder.map { StateCoder(host: host, coder: $0, instance: self) }
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
