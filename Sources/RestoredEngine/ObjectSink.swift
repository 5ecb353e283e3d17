internal import CRestoredPlugin
import RestoredState

/// Collects the objects a plugin reports with `sink_add` (`restored_object_sink`).
final class ObjectSink {
    var objects: [ReportedObject] = []

    var cPointer: OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(self).toOpaque())
    }

    static func from(_ pointer: OpaquePointer?) -> ObjectSink? {
        guard let pointer else { return nil }
        return Unmanaged<ObjectSink>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    func add(_ object: OpaquePointer?, _ info: UnsafePointer<restored_object_info>?) -> restored_status {
        guard let object, let info else { return RESTORED_ERROR_INVALID_ARGUMENT }
        // Version 1 is the first: an info struct smaller than it is malformed.
        // Later versions only add fields at the end, which this host ignores.
        guard info.pointee.struct_size >= UInt32(MemoryLayout<restored_object_info>.size) else {
            return RESTORED_ERROR_INVALID_ARGUMENT
        }
        guard let identifier = Self.text(info.pointee.identifier),
              let className = Self.text(info.pointee.class_name),
              let restorationClass = Self.text(info.pointee.restoration_class)
        else { return RESTORED_ERROR_INVALID_ARGUMENT }
        let flags = info.pointee.flags
        objects.append(ReportedObject(
            handle: ObjectHandle(object),
            identifier: identifier,
            className: className,
            restorationClass: restorationClass.isEmpty ? nil : restorationClass,
            isPresented: flags & RESTORED_OBJECT_PRESENTED.rawValue != 0,
            definesPresentationContext: flags & RESTORED_OBJECT_DEFINES_PRESENTATION_CONTEXT.rawValue != 0,
            disambiguatesChildren: flags & RESTORED_OBJECT_DISAMBIGUATES_CHILDREN.rawValue != 0
        ))
        return RESTORED_OK
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
