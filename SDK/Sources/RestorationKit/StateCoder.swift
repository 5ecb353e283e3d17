internal import CRestoredPlugin
public import Foundation

/// One object's keyed container, handed to encode and decode callbacks (R5).
///
/// Every object gets its own coder, so keys of different objects never
/// collide. Keys starting with `restored.` are the system's: writing one
/// throws ``StateCoderError/reservedKey(_:)``; reading them gives the class
/// name, restoration class, app version, system version and timestamp.
/// A coder is valid only during the callback that received it.
public struct StateCoder {
    /// The reserved key of the object's class name (R10).
    public static let classNameKey = "restored.className"
    /// The reserved key of the object's restoration class (R8).
    public static let restorationClassKey = "restored.restorationClass"
    /// The reserved key of the app version that wrote the archive (R7).
    public static let appVersionKey = "restored.appVersion"
    /// The reserved key of the system version that wrote the archive.
    public static let systemVersionKey = "restored.systemVersion"
    /// The reserved key of the archive's UTC timestamp, a date.
    public static let timestampKey = "restored.timestamp"

    let host: UnsafePointer<restored_host_functions>
    let coder: OpaquePointer
    // A coder lives only during the callback that received it, while the
    // instance is certainly alive: no reference counting needed.
    unowned(unsafe) let instance: PluginInstanceBox

    init(host: UnsafePointer<restored_host_functions>, coder: OpaquePointer, instance: PluginInstanceBox) {
        self.host = host
        self.coder = coder
        self.instance = instance
    }

    /// The plugin instance this coder belongs to. Restoration classes are
    /// static: this is how they reach their app's instance when several
    /// instances live in one process.
    public var plugin: any RestorationPlugin { instance.plugin }

    /// The context of the plugin instance this coder belongs to.
    public var context: PluginContext { instance.context }

    // MARK: Encoding

    /// Stores a string.
    public func encode(_ value: String, forKey key: String) throws {
        var value = value
        try value.withUTF8 { utf8 in
            var cValue = restored_value()
            cValue.type = RESTORED_VALUE_STRING.rawValue
            cValue.as.string = restored_string(data: UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self), length: utf8.count)
            try store(&cValue, forKey: key)
        }
    }

    /// Stores an integer.
    public func encode(_ value: Int, forKey key: String) throws {
        try encode(Int64(value), forKey: key)
    }

    /// Stores a signed 64-bit integer.
    public func encode(_ value: Int64, forKey key: String) throws {
        var cValue = restored_value()
        cValue.type = RESTORED_VALUE_INT64.rawValue
        cValue.as.int64 = value
        try store(&cValue, forKey: key)
    }

    /// Stores an unsigned 64-bit integer.
    public func encode(_ value: UInt64, forKey key: String) throws {
        var cValue = restored_value()
        cValue.type = RESTORED_VALUE_UINT64.rawValue
        cValue.as.uint64 = value
        try store(&cValue, forKey: key)
    }

    /// Stores a Boolean.
    public func encode(_ value: Bool, forKey key: String) throws {
        var cValue = restored_value()
        cValue.type = RESTORED_VALUE_BOOL.rawValue
        cValue.as.boolean = value
        try store(&cValue, forKey: key)
    }

    /// Stores a double.
    public func encode(_ value: Double, forKey key: String) throws {
        var cValue = restored_value()
        cValue.type = RESTORED_VALUE_DOUBLE.rawValue
        cValue.as.float64 = value
        try store(&cValue, forKey: key)
    }

    /// Stores a date.
    public func encode(_ value: Date, forKey key: String) throws {
        var cValue = restored_value()
        cValue.type = RESTORED_VALUE_DATE.rawValue
        cValue.as.float64 = value.timeIntervalSince1970
        try store(&cValue, forKey: key)
    }

    /// Stores a list of strings.
    public func encode(_ value: [String], forKey key: String) throws {
        var total = 0
        for element in value { total += element.utf8.count }
        try withUnsafeTemporaryAllocation(of: restored_value.self, capacity: max(value.count, 1)) { items in
            try withUnsafeTemporaryAllocation(byteCount: max(total, 1), alignment: 1) { storage in
                var offset = 0
                for (index, element) in value.enumerated() {
                    var element = element
                    let length = element.withUTF8 { utf8 in
                        if let base = utf8.baseAddress, utf8.count > 0 {
                            (storage.baseAddress! + offset).copyMemory(from: base, byteCount: utf8.count)
                        }
                        return utf8.count
                    }
                    var item = restored_value()
                    item.type = RESTORED_VALUE_STRING.rawValue
                    item.as.string = restored_string(data: UnsafeRawPointer(storage.baseAddress! + offset).assumingMemoryBound(to: CChar.self), length: length)
                    items[index] = item
                    offset += length
                }
                var cValue = restored_value()
                cValue.type = RESTORED_VALUE_ARRAY.rawValue
                cValue.as.array.items = UnsafePointer(items.baseAddress)
                cValue.as.array.count = value.count
                try store(&cValue, forKey: key)
            }
        }
    }

    /// Stores a list of integers.
    public func encode(_ value: [Int], forKey key: String) throws {
        try withUnsafeTemporaryAllocation(of: restored_value.self, capacity: max(value.count, 1)) { items in
            for (index, element) in value.enumerated() {
                var item = restored_value()
                item.type = RESTORED_VALUE_INT64.rawValue
                item.as.int64 = Int64(element)
                items[index] = item
            }
            var cValue = restored_value()
            cValue.type = RESTORED_VALUE_ARRAY.rawValue
            cValue.as.array.items = UnsafePointer(items.baseAddress)
            cValue.as.array.count = value.count
            try store(&cValue, forKey: key)
        }
    }

    /// Stores a list of doubles.
    public func encode(_ value: [Double], forKey key: String) throws {
        try withUnsafeTemporaryAllocation(of: restored_value.self, capacity: max(value.count, 1)) { items in
            for (index, element) in value.enumerated() {
                var item = restored_value()
                item.type = RESTORED_VALUE_DOUBLE.rawValue
                item.as.float64 = element
                items[index] = item
            }
            var cValue = restored_value()
            cValue.type = RESTORED_VALUE_ARRAY.rawValue
            cValue.as.array.items = UnsafePointer(items.baseAddress)
            cValue.as.array.count = value.count
            try store(&cValue, forKey: key)
        }
    }

    /// Stores bytes.
    public func encode(_ value: Data, forKey key: String) throws {
        try value.withUnsafeBytes { bytes in
            var cValue = restored_value()
            cValue.type = RESTORED_VALUE_BYTES.rawValue
            cValue.as.bytes.data = bytes.baseAddress
            cValue.as.bytes.length = bytes.count
            try store(&cValue, forKey: key)
        }
    }

    /// Stores any ``StateCodable`` value: arrays, dictionaries, data ...
    public func encode<Value: StateCodable>(_ value: Value, forKey key: String) throws {
        try encode(value.stateValue, forKey: key)
    }

    /// Stores a ``StateValue``.
    public func encode(_ value: StateValue, forKey key: String) throws {
        let arena = ValueArena()
        var cValue = try arena.cValue(value, key: key, instance: instance)
        try withExtendedLifetime(arena) { try store(&cValue, forKey: key) }
    }

    /// Stores a reference to another restorable object, by its path. An object
    /// outside the preserved tree is preserved too, under this object's path
    /// (R14: manual saves of excluded objects).
    public func encode(_ object: any RestorableObject, forKey key: String) throws {
        try encode(StateValue.object(object), forKey: key)
    }

    /// Stores references to several objects (a container's children, R14).
    public func encode(_ objects: [any RestorableObject], forKey key: String) throws {
        try encode(StateValue.array(objects.map { .object($0) }), forKey: key)
    }

    /// Stores a `Codable` value as JSON bytes. It is decoded only as the type
    /// the code asks for, never a type named by the archive (R16).
    public func encodeCodable(_ value: some Encodable, forKey key: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try encode(try encoder.encode(value), forKey: key)
    }

    // MARK: Decoding

    /// Whether the container holds `key`.
    public func contains(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { utf8 in host.pointee.contains_key(coder, Self.cString(utf8)) }
    }

    /// Reads a string; nil when the key is absent.
    public func decode(_ type: String.Type, forKey key: String) throws -> String? {
        guard let value = try load(key) else { return nil }
        guard value.type == RESTORED_VALUE_STRING.rawValue else { throw mismatch(key, "string", value) }
        return ValueArena.swiftString(value.as.string)
    }

    /// Reads an integer; nil when the key is absent.
    public func decode(_ type: Int.Type, forKey key: String) throws -> Int? {
        guard let value = try decode(Int64.self, forKey: key) else { return nil }
        guard let exact = Int(exactly: value) else {
            throw StateCoderError.typeMismatch(key: key, expected: "Int", found: "int64 out of range")
        }
        return exact
    }

    /// Reads a signed integer; nil when the key is absent.
    public func decode(_ type: Int64.Type, forKey key: String) throws -> Int64? {
        guard let value = try load(key) else { return nil }
        if value.type == RESTORED_VALUE_INT64.rawValue { return value.as.int64 }
        if value.type == RESTORED_VALUE_UINT64.rawValue, let exact = Int64(exactly: value.as.uint64) { return exact }
        throw mismatch(key, "int64", value)
    }

    /// Reads an unsigned integer; nil when the key is absent.
    public func decode(_ type: UInt64.Type, forKey key: String) throws -> UInt64? {
        guard let value = try load(key) else { return nil }
        if value.type == RESTORED_VALUE_UINT64.rawValue { return value.as.uint64 }
        if value.type == RESTORED_VALUE_INT64.rawValue, let exact = UInt64(exactly: value.as.int64) { return exact }
        throw mismatch(key, "uint64", value)
    }

    /// Reads a Boolean; nil when the key is absent.
    public func decode(_ type: Bool.Type, forKey key: String) throws -> Bool? {
        guard let value = try load(key) else { return nil }
        guard value.type == RESTORED_VALUE_BOOL.rawValue else { throw mismatch(key, "bool", value) }
        return value.as.boolean
    }

    /// Reads a double; nil when the key is absent.
    public func decode(_ type: Double.Type, forKey key: String) throws -> Double? {
        guard let value = try load(key) else { return nil }
        guard value.type == RESTORED_VALUE_DOUBLE.rawValue else { throw mismatch(key, "double", value) }
        return value.as.float64
    }

    /// Reads a date; nil when the key is absent.
    public func decode(_ type: Date.Type, forKey key: String) throws -> Date? {
        guard let value = try load(key) else { return nil }
        guard value.type == RESTORED_VALUE_DATE.rawValue else { throw mismatch(key, "date", value) }
        return Date(timeIntervalSince1970: value.as.float64)
    }

    /// Reads a list of strings; nil when the key is absent.
    public func decode(_ type: [String].Type, forKey key: String) throws -> [String]? {
        guard let value = try load(key) else { return nil }
        guard value.type == RESTORED_VALUE_ARRAY.rawValue else { throw mismatch(key, "array of strings", value) }
        var result: [String] = []
        result.reserveCapacity(value.as.array.count)
        for index in 0..<value.as.array.count {
            let item = value.as.array.items![index]
            guard item.type == RESTORED_VALUE_STRING.rawValue else { throw mismatch(key, "array of strings", value) }
            result.append(ValueArena.swiftString(item.as.string))
        }
        return result
    }

    /// Reads a list of integers; nil when the key is absent.
    public func decode(_ type: [Int].Type, forKey key: String) throws -> [Int]? {
        guard let value = try load(key) else { return nil }
        guard value.type == RESTORED_VALUE_ARRAY.rawValue else { throw mismatch(key, "array of integers", value) }
        var result: [Int] = []
        result.reserveCapacity(value.as.array.count)
        for index in 0..<value.as.array.count {
            let item = value.as.array.items![index]
            guard item.type == RESTORED_VALUE_INT64.rawValue, let number = Int(exactly: item.as.int64) else {
                throw mismatch(key, "array of integers", value)
            }
            result.append(number)
        }
        return result
    }

    /// Reads a list of doubles; nil when the key is absent.
    public func decode(_ type: [Double].Type, forKey key: String) throws -> [Double]? {
        guard let value = try load(key) else { return nil }
        guard value.type == RESTORED_VALUE_ARRAY.rawValue else { throw mismatch(key, "array of doubles", value) }
        var result: [Double] = []
        result.reserveCapacity(value.as.array.count)
        for index in 0..<value.as.array.count {
            let item = value.as.array.items![index]
            guard item.type == RESTORED_VALUE_DOUBLE.rawValue else { throw mismatch(key, "array of doubles", value) }
            result.append(item.as.float64)
        }
        return result
    }

    /// Reads bytes; nil when the key is absent.
    public func decode(_ type: Data.Type, forKey key: String) throws -> Data? {
        guard let value = try load(key) else { return nil }
        guard value.type == RESTORED_VALUE_BYTES.rawValue else { throw mismatch(key, "bytes", value) }
        guard let data = value.as.bytes.data, value.as.bytes.length > 0 else { return Data() }
        return Data(bytes: data, count: value.as.bytes.length)
    }

    /// Reads any ``StateCodable`` value; nil when the key is absent.
    public func decode<Value: StateCodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        guard let value = try decodeValue(forKey: key) else { return nil }
        guard let result = Value(stateValue: value) else {
            throw StateCoderError.typeMismatch(key: key, expected: String(describing: Value.self), found: value.kindName)
        }
        return result
    }

    /// Reads the raw ``StateValue``; nil when the key is absent.
    public func decodeValue(forKey key: String) throws -> StateValue? {
        guard let value = try load(key) else { return nil }
        return try ValueArena.stateValue(value, key: key, instance: instance)
    }

    /// Reads an object reference: the object restored at that path, or nil.
    public func decodeObject(forKey key: String) throws -> (any RestorableObject)? {
        guard let value = try decodeValue(forKey: key) else { return nil }
        guard case .object(let object) = value else {
            throw StateCoderError.typeMismatch(key: key, expected: "object reference", found: value.kindName)
        }
        return object
    }

    /// Reads object references; references to objects that were not restored
    /// are left out.
    public func decodeObjects(forKey key: String) throws -> [any RestorableObject] {
        guard let value = try decodeValue(forKey: key) else { return [] }
        guard case .array(let items) = value else {
            throw StateCoderError.typeMismatch(key: key, expected: "array of object references", found: value.kindName)
        }
        return items.compactMap { item in
            if case .object(let object) = item { return object }
            return nil
        }
    }

    /// Reads a `Codable` value stored with ``encodeCodable(_:forKey:)`` as the
    /// type the code names.
    public func decodeCodable<Value: Decodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        guard let data = try decode(Data.self, forKey: key) else { return nil }
        return try JSONDecoder().decode(Value.self, from: data)
    }

    // MARK: Host calls

    private func store(_ value: inout restored_value, forKey key: String) throws {
        var key = key
        let status = key.withUTF8 { utf8 in host.pointee.encode_value(coder, Self.cString(utf8), &value) }
        guard status == RESTORED_OK else { throw Self.error(status, key: key) }
    }

    private func load(_ key: String) throws -> restored_value? {
        var key = key
        var value = restored_value()
        let status = key.withUTF8 { utf8 in host.pointee.decode_value(coder, Self.cString(utf8), &value) }
        if status == RESTORED_ERROR_NOT_FOUND { return nil }
        guard status == RESTORED_OK else { throw Self.error(status, key: key) }
        return value
    }

    private func mismatch(_ key: String, _ expected: String, _ value: restored_value) -> StateCoderError {
        let found = (try? ValueArena.stateValue(value, key: key, instance: instance))?.kindName ?? "value of type \(value.type)"
        return .typeMismatch(key: key, expected: expected, found: found)
    }

    static func cString(_ utf8: UnsafeBufferPointer<UInt8>) -> restored_string {
        restored_string(data: UnsafeRawPointer(utf8.baseAddress)?.assumingMemoryBound(to: CChar.self), length: utf8.count)
    }

    static func error(_ status: Int32, key: String) -> StateCoderError {
        switch status {
        case RESTORED_ERROR_RESERVED_KEY: .reservedKey(key)
        case RESTORED_ERROR_BUDGET_EXCEEDED: .budgetExceeded(key: key)
        case RESTORED_ERROR_UNKNOWN_OBJECT: .unknownObject(key: key)
        case RESTORED_ERROR_WRONG_PHASE: .wrongPhase("encoding \"\(key)\"")
        case RESTORED_ERROR_INVALID_ARGUMENT: .invalidValue(key: key, reason: "the host refused the value")
        default: .hostFailure(key: key, status: status)
        }
    }
}
