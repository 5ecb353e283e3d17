internal import CRestoredPlugin
public import RestoredState

/// Serves one object's (or the app's) saved state during restoration.
///
/// Strings and bytes handed to the plugin point into the coder's own copy
/// of the state; nested values and paths live in its arena. Everything is
/// freed with the coder, after the callback returns.
public final class DecodingCoder: HostCoder {
    private let storage: UnsafeMutableRawBufferPointer
    private let bytes: UnsafeRawBufferPointer
    /// The index of the entries, built on the first per-key call (C plugins);
    /// the Swift SDK borrows the bytes and reads them itself.
    private lazy var reader: StateContainerReader? = try? StateContainerReader(bytes)
    /// Turns a stored path into the object located for it, if any (R9).
    var resolveReference: (ObjectPath) -> ObjectHandle?

    /// Holds `state`. Malformed state (R16) shows when it is read: the
    /// walks check it with ``validate()`` first.
    public init(state: [UInt8], reserved: [String: StoredValue] = [:], resolveReference: @escaping (ObjectPath) -> ObjectHandle? = { _ in nil }) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(state.count, 1), alignment: 8)
        state.withUnsafeBytes { source in
            if let base = source.baseAddress { storage.baseAddress!.copyMemory(from: base, byteCount: source.count) }
        }
        self.bytes = UnsafeRawBufferPointer(start: storage.baseAddress, count: state.count)
        self.storage = storage
        self.resolveReference = resolveReference
        super.init(reserved: reserved)
    }

    deinit {
        storage.deallocate()
    }

    /// Throws when the state is malformed (R16), without keeping an index.
    public func validate() throws(StateFormatError) {
        try StateContainerReader.validate(bytes)
    }

    override func decodeValue(key: UnsafeRawBufferPointer, into value: UnsafeMutablePointer<restored_value>) -> restored_status {
        if Self.isReserved(key) { return decodeReserved(key: key, into: value) }
        guard let reader else { return RESTORED_ERROR_INVALID_ARGUMENT }
        guard let view = reader.value(forKey: key) else { return RESTORED_ERROR_NOT_FOUND }
        do {
            value.pointee = try cValue(view, depth: 0)
            return RESTORED_OK
        } catch {
            return RESTORED_ERROR_INVALID_ARGUMENT
        }
    }

    override func borrowEntries() -> UnsafeRawBufferPointer? {
        bytes
    }

    override func object(at path: ObjectPath) -> ObjectHandle? {
        resolveReference(path)
    }

    override func containsKey(_ key: UnsafeRawBufferPointer) -> Bool {
        Self.isReserved(key) ? super.containsKey(key) : reader?.value(forKey: key) != nil
    }

    private func cValue(_ view: StateValueView, depth: Int) throws(StateFormatError) -> restored_value {
        guard depth < StateValueView.maximumDepth else {
            throw StateFormatError("values nested too deeply", at: view.payload.lowerBound)
        }
        var value = restored_value()
        switch view.tag {
        case .boolFalse, .boolTrue:
            value.type = RESTORED_VALUE_BOOL.rawValue
            value.as.boolean = view.boolValue
        case .int64:
            value.type = RESTORED_VALUE_INT64.rawValue
            value.as.int64 = view.int64Value
        case .uint64:
            value.type = RESTORED_VALUE_UINT64.rawValue
            value.as.uint64 = view.uint64Value
        case .double:
            value.type = RESTORED_VALUE_DOUBLE.rawValue
            value.as.float64 = view.doubleValue
        case .date:
            value.type = RESTORED_VALUE_DATE.rawValue
            value.as.float64 = view.doubleValue
        case .string:
            value.type = RESTORED_VALUE_STRING.rawValue
            value.as.string = Self.cString(view.bytesValue)
        case .bytes:
            value.type = RESTORED_VALUE_BYTES.rawValue
            value.as.bytes.data = view.bytesValue.baseAddress
            value.as.bytes.length = view.bytesValue.count
        case .array:
            let items = try view.arrayElements()
            let storage = allocate(restored_value.self, count: items.count)
            for (index, item) in items.enumerated() {
                (storage + index).initialize(to: try cValue(item, depth: depth + 1))
            }
            value.type = RESTORED_VALUE_ARRAY.rawValue
            value.as.array.items = UnsafePointer(storage)
            value.as.array.count = items.count
        case .dictionary:
            let entries = try view.dictionaryEntries()
            let keys = allocate(restored_string.self, count: entries.count)
            let values = allocate(restored_value.self, count: entries.count)
            for (index, entry) in entries.enumerated() {
                (keys + index).initialize(to: Self.cString(entry.key))
                (values + index).initialize(to: try cValue(entry.value, depth: depth + 1))
            }
            value.type = RESTORED_VALUE_DICTIONARY.rawValue
            value.as.dictionary.keys = UnsafePointer(keys)
            value.as.dictionary.values = UnsafePointer(values)
            value.as.dictionary.count = entries.count
        case .objectHandle:
            // Never stored: a reader refuses it before it gets here.
            throw StateFormatError("an object handle in stored state", at: view.payload.lowerBound)
        case .reference:
            let components = try view.referenceComponents()
            let cComponents = allocate(restored_path_component.self, count: components.count)
            for (index, component) in components.enumerated() {
                (cComponents + index).initialize(to: restored_path_component(
                    identifier: Self.cString(component.identifier), position: component.position ?? -1
                ))
            }
            let path = allocate(restored_path.self, count: 1)
            path.initialize(to: restored_path(components: UnsafePointer(cComponents), count: components.count))
            value.type = RESTORED_VALUE_OBJECT.rawValue
            value.as.reference.path = UnsafePointer(path)
            value.as.reference.object = resolveReference(try view.referencePath())?.pointer
        }
        return value
    }

    private static func cString(_ bytes: UnsafeRawBufferPointer) -> restored_string {
        restored_string(data: bytes.baseAddress?.assumingMemoryBound(to: CChar.self), length: bytes.count)
    }
}
