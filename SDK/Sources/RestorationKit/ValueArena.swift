internal import CRestoredPlugin
import Foundation

/// Memory for the C form of a value tree while it crosses the ABI.
///
/// The host copies what it receives, so the arena is freed right after the
/// call that used it.
final class ValueArena {
    /// Memory is handed out from blocks of this size; larger requests get their own.
    private static let blockSize = 4096
    private var allocations: [UnsafeMutableRawPointer] = []
    private var block: UnsafeMutableRawPointer?
    private var used = 0

    deinit {
        for allocation in allocations { allocation.deallocate() }
    }

    /// Uninitialised memory for `byteCount` bytes at `alignment`.
    private func reserve(_ byteCount: Int, alignment: Int) -> UnsafeMutableRawPointer {
        if byteCount > Self.blockSize / 4 {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: max(alignment, 16))
            allocations.append(memory)
            return memory
        }
        var start = (used + alignment - 1) & ~(alignment - 1)
        if block == nil || start + byteCount > Self.blockSize {
            let memory = UnsafeMutableRawPointer.allocate(byteCount: Self.blockSize, alignment: 16)
            allocations.append(memory)
            block = memory
            start = 0
        }
        used = start + byteCount
        return block! + start
    }

    /// Copies bytes into the arena.
    func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawPointer? {
        guard bytes.count > 0, let source = bytes.baseAddress else { return nil }
        let target = reserve(bytes.count, alignment: 1)
        target.copyMemory(from: source, byteCount: bytes.count)
        return UnsafeRawPointer(target)
    }

    /// Copies a string's UTF-8 into the arena.
    func string(_ value: String) -> restored_string {
        var value = value
        return value.withUTF8 { utf8 in
            restored_string(data: copy(UnsafeRawBufferPointer(utf8))?.assumingMemoryBound(to: CChar.self), length: utf8.count)
        }
    }

    /// Allocates an uninitialised array of `count` elements.
    func allocate<T>(_ type: T.Type, count: Int) -> UnsafeMutablePointer<T> {
        reserve(MemoryLayout<T>.stride * max(count, 1), alignment: MemoryLayout<T>.alignment).bindMemory(to: T.self, capacity: max(count, 1))
    }

    /// The C form of a value; object references become handles of `instance`.
    func cValue(_ value: StateValue, key: String, instance: PluginInstanceBox) throws(StateCoderError) -> restored_value {
        var result = restored_value()
        switch value {
        case .bool(let value):
            result.type = RESTORED_VALUE_BOOL.rawValue
            result.as.boolean = value
        case .int64(let value):
            result.type = RESTORED_VALUE_INT64.rawValue
            result.as.int64 = value
        case .uint64(let value):
            result.type = RESTORED_VALUE_UINT64.rawValue
            result.as.uint64 = value
        case .double(let value):
            result.type = RESTORED_VALUE_DOUBLE.rawValue
            result.as.float64 = value
        case .string(let value):
            result.type = RESTORED_VALUE_STRING.rawValue
            result.as.string = string(value)
        case .bytes(let value):
            result.type = RESTORED_VALUE_BYTES.rawValue
            let pointer = value.withUnsafeBytes { copy($0) }
            result.as.bytes.data = pointer
            result.as.bytes.length = value.count
        case .date(let value):
            result.type = RESTORED_VALUE_DATE.rawValue
            result.as.float64 = value.timeIntervalSince1970
        case .array(let items):
            result.type = RESTORED_VALUE_ARRAY.rawValue
            let storage = allocate(restored_value.self, count: items.count)
            for (index, item) in items.enumerated() {
                (storage + index).initialize(to: try cValue(item, key: key, instance: instance))
            }
            result.as.array.items = UnsafePointer(storage)
            result.as.array.count = items.count
        case .dictionary(let entries):
            result.type = RESTORED_VALUE_DICTIONARY.rawValue
            let keys = allocate(restored_string.self, count: entries.count)
            let values = allocate(restored_value.self, count: entries.count)
            // Sorted, so the same dictionary always encodes to the same bytes
            // (autosave writes only when the encoded state changed).
            for (index, entry) in entries.sorted(by: { $0.key < $1.key }).enumerated() {
                (keys + index).initialize(to: string(entry.key))
                (values + index).initialize(to: try cValue(entry.value, key: key, instance: instance))
            }
            result.as.dictionary.keys = UnsafePointer(keys)
            result.as.dictionary.values = UnsafePointer(values)
            result.as.dictionary.count = entries.count
        case .object(let object):
            guard let object else { throw .invalidValue(key: key, reason: "a nil object reference cannot be encoded") }
            result.type = RESTORED_VALUE_OBJECT.rawValue
            result.as.object = instance.handle(for: object)
        }
        return result
    }

    /// The Swift form of a value the host handed over.
    static func stateValue(_ value: restored_value, key: String, instance: PluginInstanceBox) throws(StateCoderError) -> StateValue {
        switch restored_value_type(rawValue: value.type) {
        case RESTORED_VALUE_BOOL: return .bool(value.as.boolean)
        case RESTORED_VALUE_INT64: return .int64(value.as.int64)
        case RESTORED_VALUE_UINT64: return .uint64(value.as.uint64)
        case RESTORED_VALUE_DOUBLE: return .double(value.as.float64)
        case RESTORED_VALUE_DATE: return .date(Date(timeIntervalSince1970: value.as.float64))
        case RESTORED_VALUE_STRING: return .string(Self.swiftString(value.as.string))
        case RESTORED_VALUE_BYTES:
            guard let data = value.as.bytes.data, value.as.bytes.length > 0 else { return .bytes(Data()) }
            return .bytes(Data(bytes: data, count: value.as.bytes.length))
        case RESTORED_VALUE_ARRAY:
            var items: [StateValue] = []
            items.reserveCapacity(value.as.array.count)
            if let base = value.as.array.items {
                for index in 0..<value.as.array.count {
                    items.append(try stateValue(base[index], key: key, instance: instance))
                }
            }
            return .array(items)
        case RESTORED_VALUE_DICTIONARY:
            var entries: [String: StateValue] = [:]
            if let keys = value.as.dictionary.keys, let values = value.as.dictionary.values {
                for index in 0..<value.as.dictionary.count {
                    entries[swiftString(keys[index])] = try stateValue(values[index], key: key, instance: instance)
                }
            }
            return .dictionary(entries)
        case RESTORED_VALUE_OBJECT:
            return .object(value.as.reference.object.flatMap { instance.object(for: $0) })
        default:
            throw .invalidValue(key: key, reason: "unknown value type \(value.type) from the host")
        }
    }

    /// A Swift string from a C string slice.
    static func swiftString(_ string: restored_string) -> String {
        guard let data = string.data, string.length > 0 else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: string.length), as: UTF8.self)
    }
}
