internal import CRestoredPlugin
import RestoredState

/// Collects the objects a plugin reports with `sink_add` or, in
/// `list_tree`, with `tree_add` (`restored_object_sink`).
final class ObjectSink {
    /// Which host function the sink takes: a sink of `list_objects` and
    /// `describe_object` takes `sink_add`, one of `list_tree` `tree_add`.
    enum Mode {
        case objects
        case tree
    }

    let mode: Mode
    var objects: [ReportedObject] = []
    /// With `tree_add`: each object's parent, as its index in `objects`,
    /// or -1 for a root.
    var parents: [Int] = []
    /// Why the first report of a tree was refused: the tree is not taken,
    /// whatever the plugin then answers (the report numbers after a lost
    /// report would name the wrong parents).
    private(set) var treeRefusal: String?

    init(_ mode: Mode = .objects) {
        self.mode = mode
    }

    var cPointer: OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(self).toOpaque())
    }

    func add(_ object: OpaquePointer?, _ info: UnsafePointer<restored_object_info>?) -> restored_status {
        guard mode == .objects else { return refuse(RESTORED_ERROR_WRONG_PHASE, "sink_add was called in list_tree, which reports with tree_add") }
        guard let reported = Self.reported(object, info) else { return RESTORED_ERROR_INVALID_ARGUMENT }
        objects.append(reported)
        return RESTORED_OK
    }

    /// `tree_add`: an object under the one reported `parent`-th, or a root
    /// (RESTORED_TREE_ROOT). A parent not reported yet is refused, so the
    /// tree has no cycles.
    func add(_ object: OpaquePointer?, under parent: UInt64, info: UnsafePointer<restored_object_info>?) -> restored_status {
        guard mode == .tree else { return RESTORED_ERROR_WRONG_PHASE }
        guard treeRefusal == nil else { return RESTORED_ERROR_INVALID_ARGUMENT }
        let parentIndex: Int
        if parent == RESTORED_TREE_ROOT {
            parentIndex = -1
        } else {
            guard parent < UInt64(objects.count) else {
                return refuse(RESTORED_ERROR_INVALID_ARGUMENT, "tree_add named the parent \(parent), which is not among the \(objects.count) reported before it")
            }
            parentIndex = Int(parent)
        }
        guard let reported = Self.reported(object, info) else {
            return refuse(RESTORED_ERROR_INVALID_ARGUMENT, "tree_add's report \(objects.count) has no object or info, or an info that is malformed or not UTF-8")
        }
        objects.append(reported)
        parents.append(parentIndex)
        return RESTORED_OK
    }

    /// Refuses a report of a tree, and every later one.
    private func refuse(_ status: restored_status, _ reason: String) -> restored_status {
        if treeRefusal == nil { treeRefusal = reason }
        return status
    }

    /// The object a plugin reports, or nil when its report is malformed.
    private static func reported(_ object: OpaquePointer?, _ info: UnsafePointer<restored_object_info>?) -> ReportedObject? {
        guard let object, let info else { return nil }
        // Version 1 is the first: an info struct smaller than it is malformed.
        // Later versions only add fields at the end, which this host ignores.
        guard info.pointee.struct_size >= UInt32(MemoryLayout<restored_object_info>.size) else { return nil }
        guard let identifier = Self.text(info.pointee.identifier),
              let className = Self.text(info.pointee.class_name),
              let restorationClass = Self.text(info.pointee.restoration_class)
        else { return nil }
        let flags = info.pointee.flags
        return ReportedObject(
            handle: ObjectHandle(object),
            identifier: identifier,
            className: className,
            restorationClass: restorationClass.isEmpty ? nil : restorationClass,
            isPresented: flags & RESTORED_OBJECT_PRESENTED.rawValue != 0,
            definesPresentationContext: flags & RESTORED_OBJECT_DEFINES_PRESENTATION_CONTEXT.rawValue != 0,
            disambiguatesChildren: flags & RESTORED_OBJECT_DISAMBIGUATES_CHILDREN.rawValue != 0,
            hasUnlistedChildren: flags & RESTORED_OBJECT_CHILDREN_UNLISTED.rawValue != 0
        )
    }

    /// A string from the plugin, or nil when it is not UTF-8.
    ///
    /// Checked with the container format's own validator: the standard
    /// library's `String(validating:as:)` is generic and not specialized
    /// across the module boundary, and looked its types up at every call
    /// (three per reported object).
    static func text(_ string: restored_string) -> String? {
        guard string.length > 0 else { return "" }
        guard let data = string.data else { return nil }
        let bytes = UnsafeRawBufferPointer(start: data, count: string.length)
        guard StateContainerReader.isValidUTF8(bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
