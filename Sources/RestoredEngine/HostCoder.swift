internal import CRestoredPlugin
public import RestoredState

/// A keyed container the engine lends to a plugin callback (`restored_coder`).
///
/// ``EncodingCoder`` collects an object's state during preservation;
/// ``DecodingCoder`` serves it back during restoration. Both answer the
/// reserved `restored.` keys (R5).
public class HostCoder {
    /// The reserved keys this coder answers.
    public let reserved: [String: StoredValue]

    /// Memory for values handed to the plugin; freed with the coder.
    private var arena: [UnsafeMutableRawPointer] = []

    init(reserved: [String: StoredValue]) {
        self.reserved = reserved
    }

    deinit {
        for block in arena { block.deallocate() }
    }

    var cPointer: OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(self).toOpaque())
    }

    // MARK: Operations of the C table (overridden)

    func encodeValue(key: UnsafeRawBufferPointer, value: UnsafePointer<restored_value>) -> restored_status {
        RESTORED_ERROR_WRONG_PHASE
    }

    func decodeValue(key: UnsafeRawBufferPointer, into value: UnsafeMutablePointer<restored_value>) -> restored_status {
        decodeReserved(key: key, into: value)
    }

    func containsKey(_ key: UnsafeRawBufferPointer) -> Bool {
        reserved[String(decoding: key, as: UTF8.self)] != nil
    }

    func encodeEntries(_ bytes: UnsafeRawBufferPointer) -> restored_status {
        RESTORED_ERROR_WRONG_PHASE
    }

    /// Carries the object this coder encodes over from the last archive
    /// (`carry_over`); only an object's coder during preservation can.
    func carryOver() -> restored_status {
        RESTORED_ERROR_WRONG_PHASE
    }

    /// The container's entries in the wire format, or nil when it has none to lend.
    func borrowEntries() -> UnsafeRawBufferPointer? {
        nil
    }

    /// The object located for `path`, during restoration.
    func object(at path: ObjectPath) -> ObjectHandle? {
        nil
    }

    /// A path from the plugin, or nil when it is malformed (bad UTF-8, a
    /// negative position other than -1 for "none").
    static func objectPath(_ path: restored_path) -> ObjectPath? {
        guard path.count == 0 || path.components != nil else { return nil }
        var components: [ObjectPath.Component] = []
        components.reserveCapacity(path.count)
        for index in 0..<path.count {
            let component = path.components![index]
            guard let identifier = ObjectSink.text(component.identifier), component.position >= -1 else { return nil }
            components.append(ObjectPath.Component(identifier: identifier, position: component.position == -1 ? nil : component.position))
        }
        return ObjectPath(components)
    }

    // MARK: Helpers for subclasses

    static func isReserved(_ key: UnsafeRawBufferPointer) -> Bool {
        StateTag.isReservedKey(key)
    }

    func decodeReserved(key: UnsafeRawBufferPointer, into value: UnsafeMutablePointer<restored_value>) -> restored_status {
        guard Self.isReserved(key), let stored = reserved[String(decoding: key, as: UTF8.self)] else {
            return RESTORED_ERROR_NOT_FOUND
        }
        value.pointee = cValue(stored)
        return RESTORED_OK
    }

    /// The C form of a Swift value, with its memory in the arena.
    func cValue(_ stored: StoredValue) -> restored_value {
        var value = restored_value()
        switch stored {
        case .bool(let flag):
            value.type = RESTORED_VALUE_BOOL.rawValue
            value.as.boolean = flag
        case .int64(let number):
            value.type = RESTORED_VALUE_INT64.rawValue
            value.as.int64 = number
        case .uint64(let number):
            value.type = RESTORED_VALUE_UINT64.rawValue
            value.as.uint64 = number
        case .double(let number):
            value.type = RESTORED_VALUE_DOUBLE.rawValue
            value.as.float64 = number
        case .date(let seconds):
            value.type = RESTORED_VALUE_DATE.rawValue
            value.as.float64 = seconds
        case .string(let text):
            value.type = RESTORED_VALUE_STRING.rawValue
            value.as.string = copyString(text)
        case .bytes(let bytes):
            value.type = RESTORED_VALUE_BYTES.rawValue
            let copy = bytes.withUnsafeBytes { copyBytes($0) }
            value.as.bytes.data = copy.baseAddress
            value.as.bytes.length = copy.count
        case .array(let items):
            value.type = RESTORED_VALUE_ARRAY.rawValue
            let storage = allocate(restored_value.self, count: items.count)
            for (index, item) in items.enumerated() { (storage + index).initialize(to: cValue(item)) }
            value.as.array.items = UnsafePointer(storage)
            value.as.array.count = items.count
        case .dictionary(let entries):
            value.type = RESTORED_VALUE_DICTIONARY.rawValue
            let keys = allocate(restored_string.self, count: entries.count)
            let values = allocate(restored_value.self, count: entries.count)
            for (index, entry) in entries.enumerated() {
                (keys + index).initialize(to: copyString(entry.key))
                (values + index).initialize(to: cValue(entry.value))
            }
            value.as.dictionary.keys = UnsafePointer(keys)
            value.as.dictionary.values = UnsafePointer(values)
            value.as.dictionary.count = entries.count
        case .reference:
            // Reserved keys never hold references.
            value.type = RESTORED_VALUE_OBJECT.rawValue
        }
        return value
    }

    func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(count, 1))
        arena.append(UnsafeMutableRawPointer(pointer))
        return pointer
    }

    func copyBytes(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let target = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        arena.append(target.baseAddress!)
        if let source = bytes.baseAddress, bytes.count > 0 {
            target.baseAddress!.copyMemory(from: source, byteCount: bytes.count)
        }
        return UnsafeRawBufferPointer(start: target.baseAddress, count: bytes.count)
    }

    func copyString(_ text: String) -> restored_string {
        var text = text
        return text.withUTF8 { utf8 in
            let copy = copyBytes(UnsafeRawBufferPointer(utf8))
            return restored_string(data: copy.baseAddress?.assumingMemoryBound(to: CChar.self), length: copy.count)
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
