internal import CRestoredPlugin
public import FoundationEssentials
import RestoredState

/// One object's keyed container, handed to encode and decode callbacks (R5).
///
/// Every object gets its own coder, so keys of different objects never
/// collide. Keys starting with `restored.` are the system's: writing one
/// throws ``StateCoderError/reservedKey(_:)``; reading them gives the class
/// name, restoration class, app version, system version and timestamp.
/// A coder is valid only during the callback that received it.
///
/// Values are written in the container wire format into the coder and handed
/// to the host in one call when the callback returns; decoding reads the
/// container the host lends, without a call per key.
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
    let buffer: CoderBuffer

    init(host: UnsafePointer<restored_host_functions>, coder: OpaquePointer, instance: PluginInstanceBox, buffer: CoderBuffer) {
        self.host = host
        self.coder = coder
        self.instance = instance
        self.buffer = buffer
    }

    /// The plugin instance this coder belongs to. Restoration classes are
    /// static: this is how they reach their app's instance when several
    /// instances live in one process.
    public var plugin: any RestorationPlugin { instance.plugin }

    /// The context of the plugin instance this coder belongs to.
    public var context: PluginContext { instance.context }

    // MARK: Carrying over

    /// Keeps this object, with its subtree, as the app's last archive holds
    /// it, instead of encoding it now: for an object the app cannot say at
    /// this save (one instance of several that does not answer, a document
    /// that is busy). Call it from `encodeRestorableState(with:)` in place of
    /// encoding; values encoded before or after are dropped and the object's
    /// children are not asked. restored fills the object in from the last
    /// archive, marked carried over with the time of the save it came from
    /// (`restored-ctl show` says it); when the last archive holds no state
    /// for it, the object is left out and the save is partial (R6, R13).
    ///
    /// Throws ``StateCoderError/wrongPhase(_:)`` outside an object's
    /// encoding (the app-wide coder cannot carry over) and when restored
    /// predates carrying over.
    public func carryOverFromLastArchive() throws {
        let offset = MemoryLayout<restored_host_functions>.offset(of: \restored_host_functions.carry_over)!
        guard Int(host.pointee.struct_size) >= offset + MemoryLayout<UnsafeRawPointer?>.size, let carryOver = host.pointee.carry_over else {
            throw StateCoderError.wrongPhase("carrying an object over (this restored predates it)")
        }
        let status = carryOver(coder)
        guard status == RESTORED_OK else { throw StateCoderError.wrongPhase("carrying an object over from anything but an object's encoding") }
    }

    // MARK: Encoding

    /// Stores a string.
    public func encode(_ value: String, forKey key: String) throws {
        try write(key) { $0.appendString(value) }
    }

    /// Stores an integer.
    public func encode(_ value: Int, forKey key: String) throws {
        try write(key) { $0.appendInt64(Int64(value)) }
    }

    /// Stores a signed 64-bit integer.
    public func encode(_ value: Int64, forKey key: String) throws {
        try write(key) { $0.appendInt64(value) }
    }

    /// Stores an unsigned 64-bit integer.
    public func encode(_ value: UInt64, forKey key: String) throws {
        try write(key) { $0.appendUInt64(value) }
    }

    /// Stores a Boolean.
    public func encode(_ value: Bool, forKey key: String) throws {
        try write(key) { $0.appendBool(value) }
    }

    /// Stores a double.
    public func encode(_ value: Double, forKey key: String) throws {
        try write(key) { $0.appendDouble(value) }
    }

    /// Stores a date.
    public func encode(_ value: Date, forKey key: String) throws {
        try write(key) { $0.appendDate(value.timeIntervalSince1970) }
    }

    /// Stores bytes.
    public func encode(_ value: Data, forKey key: String) throws {
        try write(key) { writer in value.withUnsafeBytes { writer.appendBytes($0) } }
    }

    /// Stores a list of strings.
    public func encode(_ value: [String], forKey key: String) throws {
        try write(key) { writer in
            let mark = writer.beginNested(.array, count: value.count)
            for element in value { writer.appendString(element) }
            writer.endNested(mark)
        }
    }

    /// Stores a list of integers.
    public func encode(_ value: [Int], forKey key: String) throws {
        try write(key) { writer in
            let mark = writer.beginNested(.array, count: value.count)
            for element in value { writer.appendInt64(Int64(element)) }
            writer.endNested(mark)
        }
    }

    /// Stores a list of doubles.
    public func encode(_ value: [Double], forKey key: String) throws {
        try write(key) { writer in
            let mark = writer.beginNested(.array, count: value.count)
            for element in value { writer.appendDouble(element) }
            writer.endNested(mark)
        }
    }

    /// Stores any ``StateCodable`` value: arrays, dictionaries, data ...
    public func encode<Value: StateCodable>(_ value: Value, forKey key: String) throws {
        try encode(value.stateValue, forKey: key)
    }

    /// Stores a ``StateValue``. When it throws, nothing of it is kept.
    public func encode(_ value: StateValue, forKey key: String) throws {
        let instance = self.instance
        let mark = buffer.writer.count
        var failure: StateCoderError?
        try write(key) { writer in
            do throws(StateCoderError) {
                try Self.append(value, to: &writer, key: key, instance: instance)
            } catch {
                failure = error
            }
        }
        if let failure {
            buffer.writer.truncate(to: mark)
            throw failure
        }
        // A reference goes to the host at once, so that an object the host
        // refuses (R14: no restoration identifier) is named by its key.
        if value.holdsObjectReference { try flush(naming: key) }
    }

    /// Stores a reference to another restorable object, by its path. An object
    /// outside the preserved tree is preserved too, under this object's path
    /// (R14: manual saves of excluded objects).
    public func encode(_ object: any RestorableObject, forKey key: String) throws {
        let handle = instance.handle(for: object)
        try write(key) { $0.appendObjectHandle(UInt64(UInt(bitPattern: handle))) }
    }

    /// Stores references to several objects (a container's children, R14).
    public func encode(_ objects: [any RestorableObject], forKey key: String) throws {
        let handles = objects.map { UInt64(UInt(bitPattern: instance.handle(for: $0))) }
        try write(key) { writer in
            let mark = writer.beginNested(.array, count: handles.count)
            for handle in handles { writer.appendObjectHandle(handle) }
            writer.endNested(mark)
        }
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
        if Self.isReserved(key) {
            var key = key
            return key.withUTF8 { utf8 in host.pointee.contains_key(coder, Self.cString(utf8)) }
        }
        return (try? view(forKey: key)) != nil
    }

    /// Reads a string; nil when the key is absent.
    public func decode(_ type: String.Type, forKey key: String) throws -> String? {
        if Self.isReserved(key) { return try reserved(String.self, forKey: key) }
        guard let view = try view(forKey: key) else { return nil }
        guard view.tag == .string else { throw mismatch(key, "string", view) }
        return view.stringValue
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
        if Self.isReserved(key) { return try reserved(Int64.self, forKey: key) }
        guard let view = try view(forKey: key) else { return nil }
        if view.tag == .int64 { return view.int64Value }
        if view.tag == .uint64, let exact = Int64(exactly: view.uint64Value) { return exact }
        throw mismatch(key, "int64", view)
    }

    /// Reads an unsigned integer; nil when the key is absent.
    public func decode(_ type: UInt64.Type, forKey key: String) throws -> UInt64? {
        if Self.isReserved(key) { return try reserved(UInt64.self, forKey: key) }
        guard let view = try view(forKey: key) else { return nil }
        if view.tag == .uint64 { return view.uint64Value }
        if view.tag == .int64, let exact = UInt64(exactly: view.int64Value) { return exact }
        throw mismatch(key, "uint64", view)
    }

    /// Reads a Boolean; nil when the key is absent.
    public func decode(_ type: Bool.Type, forKey key: String) throws -> Bool? {
        if Self.isReserved(key) { return try reserved(Bool.self, forKey: key) }
        guard let view = try view(forKey: key) else { return nil }
        guard view.tag == .boolTrue || view.tag == .boolFalse else { throw mismatch(key, "bool", view) }
        return view.boolValue
    }

    /// Reads a double; nil when the key is absent.
    public func decode(_ type: Double.Type, forKey key: String) throws -> Double? {
        if Self.isReserved(key) { return try reserved(Double.self, forKey: key) }
        guard let view = try view(forKey: key) else { return nil }
        guard view.tag == .double else { throw mismatch(key, "double", view) }
        return view.doubleValue
    }

    /// Reads a date; nil when the key is absent.
    public func decode(_ type: Date.Type, forKey key: String) throws -> Date? {
        if Self.isReserved(key) { return try reserved(Date.self, forKey: key) }
        guard let view = try view(forKey: key) else { return nil }
        guard view.tag == .date else { throw mismatch(key, "date", view) }
        return Date(timeIntervalSince1970: view.doubleValue)
    }

    /// Reads bytes; nil when the key is absent.
    public func decode(_ type: Data.Type, forKey key: String) throws -> Data? {
        if Self.isReserved(key) { return try reserved(Data.self, forKey: key) }
        guard let view = try view(forKey: key) else { return nil }
        guard view.tag == .bytes else { throw mismatch(key, "bytes", view) }
        return Data(view.bytesValue)
    }

    /// Reads a list of strings; nil when the key is absent.
    public func decode(_ type: [String].Type, forKey key: String) throws -> [String]? {
        if Self.isReserved(key) { return try reserved([String].self, forKey: key) }
        guard let view = try view(forKey: key) else { return nil }
        guard view.tag == .array else { throw mismatch(key, "array of strings", view) }
        var result: [String] = []
        for element in try view.arrayElements() {
            guard element.tag == .string else { throw mismatch(key, "array of strings", view) }
            result.append(element.stringValue)
        }
        return result
    }

    /// Reads a list of integers; nil when the key is absent.
    public func decode(_ type: [Int].Type, forKey key: String) throws -> [Int]? {
        if Self.isReserved(key) { return try reserved([Int].self, forKey: key) }
        guard let view = try view(forKey: key) else { return nil }
        guard view.tag == .array else { throw mismatch(key, "array of integers", view) }
        var result: [Int] = []
        for element in try view.arrayElements() {
            guard element.tag == .int64, let number = Int(exactly: element.int64Value) else {
                throw mismatch(key, "array of integers", view)
            }
            result.append(number)
        }
        return result
    }

    /// Reads a list of doubles; nil when the key is absent.
    public func decode(_ type: [Double].Type, forKey key: String) throws -> [Double]? {
        if Self.isReserved(key) { return try reserved([Double].self, forKey: key) }
        guard let view = try view(forKey: key) else { return nil }
        guard view.tag == .array else { throw mismatch(key, "array of doubles", view) }
        var result: [Double] = []
        for element in try view.arrayElements() {
            guard element.tag == .double else { throw mismatch(key, "array of doubles", view) }
            result.append(element.doubleValue)
        }
        return result
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
        if Self.isReserved(key) {
            guard let value = try load(key) else { return nil }
            return try CValues.stateValue(value, key: key, instance: instance)
        }
        guard let view = try view(forKey: key) else { return nil }
        return try stateValue(view, key: key)
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

    // MARK: Writing

    /// Appends one entry, refusing reserved keys (R5).
    private func write(_ key: String, _ value: (inout StateContainerWriter) -> Void) throws {
        guard !Self.isReserved(key) else { throw StateCoderError.reservedKey(key) }
        let buffer = self.buffer
        buffer.writer.appendKey(key)
        value(&buffer.writer)
    }

    /// Hands the entries encoded so far in this callback to the host; an
    /// error names `key`, the entry just encoded, when there is one.
    func flush(naming key: String = "the encoded state") throws {
        let buffer = self.buffer
        guard buffer.writer.count > 0 else { return }
        let status = buffer.writer.bytes.withUnsafeBytes { bytes in
            host.pointee.encode_entries(coder, bytes.baseAddress, bytes.count)
        }
        // The host took every entry or none: either way they are gone.
        buffer.writer.removeAll()
        guard status == RESTORED_OK else { throw Self.error(status, key: key) }
    }

    private static func append(_ value: StateValue, to writer: inout StateContainerWriter, key: String, instance: PluginInstanceBox) throws(StateCoderError) {
        switch value {
        case .bool(let flag): writer.appendBool(flag)
        case .int64(let number): writer.appendInt64(number)
        case .uint64(let number): writer.appendUInt64(number)
        case .double(let number): writer.appendDouble(number)
        case .string(let text): writer.appendString(text)
        case .bytes(let data): data.withUnsafeBytes { writer.appendBytes($0) }
        case .date(let date): writer.appendDate(date.timeIntervalSince1970)
        case .array(let items):
            let mark = writer.beginNested(.array, count: items.count)
            for item in items { try append(item, to: &writer, key: key, instance: instance) }
            writer.endNested(mark)
        case .dictionary(let entries):
            let mark = writer.beginNested(.dictionary, count: entries.count)
            // Sorted, so the same dictionary always encodes to the same bytes
            // (autosave writes only when the encoded state changed).
            for (entryKey, item) in entries.sorted(by: { $0.key < $1.key }) {
                writer.appendKey(entryKey)
                try append(item, to: &writer, key: key, instance: instance)
            }
            writer.endNested(mark)
        case .object(let object):
            guard let object else { throw .invalidValue(key: key, reason: "a nil object reference cannot be encoded") }
            writer.appendObjectHandle(UInt64(UInt(bitPattern: instance.handle(for: object))))
        }
    }

    // MARK: Reading

    /// The stored value of a key, from the container the host lends.
    private func view(forKey key: String) throws -> StateValueView? {
        let buffer = self.buffer
        if !buffer.isBorrowed {
            buffer.isBorrowed = true
            var bytes: UnsafeRawPointer?
            var length = 0
            if host.pointee.borrow_entries(coder, &bytes, &length) == RESTORED_OK {
                do {
                    try buffer.reader.index(UnsafeRawBufferPointer(start: bytes, count: length))
                } catch {
                    throw StateCoderError.invalidValue(key: key, reason: "the host lent malformed state: \(error)")
                }
            }
        }
        return buffer.value(forKey: key)
    }

    private func stateValue(_ view: StateValueView, key: String) throws -> StateValue {
        switch view.tag {
        case .boolFalse, .boolTrue: return .bool(view.boolValue)
        case .int64: return .int64(view.int64Value)
        case .uint64: return .uint64(view.uint64Value)
        case .double: return .double(view.doubleValue)
        case .date: return .date(Date(timeIntervalSince1970: view.doubleValue))
        case .string: return .string(view.stringValue)
        case .bytes: return .bytes(Data(view.bytesValue))
        case .array: return .array(try view.arrayElements().map { try stateValue($0, key: key) })
        case .dictionary:
            var entries: [String: StateValue] = [:]
            for entry in try view.dictionaryEntries() {
                entries[String(decoding: entry.key, as: UTF8.self)] = try stateValue(entry.value, key: key)
            }
            return .dictionary(entries)
        case .reference: return .object(try object(at: view.referenceComponents()))
        case .objectHandle: throw StateCoderError.invalidValue(key: key, reason: "an object handle in stored state")
        }
    }

    /// The object the host located for a path (R9), or nil.
    private func object(at components: [(identifier: UnsafeRawBufferPointer, position: Int64?)]) -> (any RestorableObject)? {
        withUnsafeTemporaryAllocation(of: restored_path_component.self, capacity: max(components.count, 1)) { buffer in
            for (index, component) in components.enumerated() {
                buffer[index] = restored_path_component(
                    identifier: restored_string(data: component.identifier.baseAddress?.assumingMemoryBound(to: CChar.self), length: component.identifier.count),
                    position: component.position ?? -1
                )
            }
            var path = restored_path(components: UnsafePointer(buffer.baseAddress), count: components.count)
            return host.pointee.object_at_path(coder, &path).flatMap { instance.object(for: $0) }
        }
    }

    /// A reserved key's value, read from the host.
    private func reserved<Value: StateCodable>(_ type: Value.Type, forKey key: String) throws -> Value? {
        guard let value = try decodeValue(forKey: key) else { return nil }
        guard let result = Value(stateValue: value) else {
            throw StateCoderError.typeMismatch(key: key, expected: String(describing: Value.self), found: value.kindName)
        }
        return result
    }

    private func load(_ key: String) throws -> restored_value? {
        var key = key
        var value = restored_value()
        let status = key.withUTF8 { utf8 in host.pointee.decode_value(coder, Self.cString(utf8), &value) }
        if status == RESTORED_ERROR_NOT_FOUND { return nil }
        guard status == RESTORED_OK else { throw Self.error(status, key: key) }
        return value
    }

    private func mismatch(_ key: String, _ expected: String, _ view: StateValueView) -> StateCoderError {
        let found = (try? stateValue(view, key: key))?.kindName ?? "malformed value"
        return .typeMismatch(key: key, expected: expected, found: found)
    }

    static func isReserved(_ key: String) -> Bool {
        key.utf8.first == UInt8(ascii: "r") && key.hasPrefix(StateTag.reservedKeyPrefix)
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
