internal import CRestoredPlugin
import FoundationEssentials

/// Conversions from the C values the host hands over.
enum CValues {
    /// The Swift form of a value the host handed over (reserved keys).
    static func stateValue(_ value: restored_value, key: String, instance: PluginInstanceBox) throws(StateCoderError) -> StateValue {
        switch restored_value_type(rawValue: value.type) {
        case RESTORED_VALUE_BOOL: return .bool(value.as.boolean)
        case RESTORED_VALUE_INT64: return .int64(value.as.int64)
        case RESTORED_VALUE_UINT64: return .uint64(value.as.uint64)
        case RESTORED_VALUE_DOUBLE: return .double(value.as.float64)
        case RESTORED_VALUE_DATE: return .date(Date(timeIntervalSince1970: value.as.float64))
        case RESTORED_VALUE_STRING: return .string(swiftString(value.as.string))
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
