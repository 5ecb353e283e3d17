internal import CRestoredPlugin
public import RestoredState

/// Collects one object's (or the app's) state during preservation (R5, R13).
///
/// Values go straight into the container's wire format. A key with the
/// reserved prefix is refused; once the state passes the byte budget every
/// further value is refused and ``exceededBudget`` is set.
public final class EncodingCoder: HostCoder {
    /// The encoded container.
    public private(set) var writer: StateContainerWriter
    /// The byte budget of this container (R13).
    public let budget: Int
    /// Whether a value was refused for the budget.
    public private(set) var exceededBudget = false
    /// Why the first value refused was refused, naming its key: what a
    /// plugin that returns the bare status leaves unsaid (R5, R13, R14).
    public private(set) var refusal: String?
    /// Turns an object handle into the path to store; nil refuses the reference.
    var resolveReference: (ObjectHandle) -> ObjectPath?
    /// Whether the object may be carried over from the last archive: an
    /// object's coder, not the app-wide one.
    let allowsCarryOver: Bool
    /// Whether the plugin carried the object over instead of encoding it.
    public private(set) var carriesOver = false

    /// Creates an empty coder.
    public init(
        budget: Int, reserved: [String: StoredValue] = [:], allowsCarryOver: Bool = false,
        resolveReference: @escaping (ObjectHandle) -> ObjectPath? = { _ in nil }
    ) {
        self.writer = StateContainerWriter(reservingCapacity: 128)
        self.budget = budget
        self.allowsCarryOver = allowsCarryOver
        self.resolveReference = resolveReference
        super.init(reserved: reserved)
    }

    /// The encoded bytes.
    public var bytes: [UInt8] { writer.bytes }

    /// A copy of the encoded bytes that holds only them, not the capacity
    /// the coder keeps for its next object (an array made from a slice of
    /// the whole array would share the coder's buffer).
    public var bytesCopy: [UInt8] { writer.bytes.withUnsafeBufferPointer { Array($0) } }

    /// Empties the coder for the next object, keeping its buffer: a walk
    /// encodes every object through one coder, so the buffer grows once
    /// instead of once per object.
    public func reset() {
        writer.removeAll()
        exceededBudget = false
        refusal = nil
        carriesOver = false
    }

    override func carryOver() -> restored_status {
        guard allowsCarryOver else { return RESTORED_ERROR_WRONG_PHASE }
        carriesOver = true
        return RESTORED_OK
    }

    override func encodeValue(key: UnsafeRawBufferPointer, value: UnsafePointer<restored_value>) -> restored_status {
        if exceededBudget { return RESTORED_ERROR_BUDGET_EXCEEDED }
        if Self.isReserved(key) { return refuse(RESTORED_ERROR_RESERVED_KEY, key: key) }
        guard StateContainerReader.isValidUTF8(key) else { return refuse(RESTORED_ERROR_INVALID_ARGUMENT, "a key that is not UTF-8") }
        let resolve = resolveReference
        // One exclusive access to the writer for the whole value.
        let (status, count) = Self.append(key: key, value: value.pointee, to: &writer, resolve: resolve)
        if status != RESTORED_OK { return refuse(status, key: key) }
        if count > budget {
            exceededBudget = true
            return refuse(RESTORED_ERROR_BUDGET_EXCEEDED, key: key)
        }
        return RESTORED_OK
    }

    /// Notes the first refusal, with the key it concerns, and returns `status`.
    private func refuse(_ status: restored_status, key: UnsafeRawBufferPointer) -> restored_status {
        let name = String(decoding: key, as: UTF8.self)
        switch status {
        case RESTORED_ERROR_RESERVED_KEY:
            return refuse(status, "key \"\(name)\" uses the reserved prefix \"\(StateTag.reservedKeyPrefix)\" (R5); choose another key")
        case RESTORED_ERROR_BUDGET_EXCEEDED:
            return refuse(status, "encoding \"\(name)\" passes the object budget of \(budget) bytes (R13); encode references to data, not the data (R14)")
        case RESTORED_ERROR_UNKNOWN_OBJECT:
            return refuse(status, "the object referenced under \"\(name)\" has no restoration identifier (R14); give it one")
        default:
            return refuse(status, "the value of \"\(name)\" is malformed (an unknown type, bad UTF-8, a NULL pointer or nesting over \(StateValueView.maximumDepth) levels)")
        }
    }

    private func refuse(_ status: restored_status, _ reason: String) -> restored_status {
        if refusal == nil { refusal = reason }
        return status
    }

    override func encodeEntries(_ bytes: UnsafeRawBufferPointer) -> restored_status {
        if exceededBudget { return RESTORED_ERROR_BUDGET_EXCEEDED }
        let resolve = resolveReference
        do {
            try writer.appendPluginEntries(bytes) { handle in resolve(ObjectHandle(rawValue: UInt(truncatingIfNeeded: handle))) }
        } catch {
            switch error {
            case .reservedKey: return refuse(RESTORED_ERROR_RESERVED_KEY, "\(error) (R5); choose another key")
            case .unknownObject: return refuse(RESTORED_ERROR_UNKNOWN_OBJECT, "\(error); give it one")
            case .malformed: return refuse(RESTORED_ERROR_INVALID_ARGUMENT, error.description)
            }
        }
        if writer.count > budget {
            exceededBudget = true
            return refuse(RESTORED_ERROR_BUDGET_EXCEEDED, "the state passes the object budget of \(budget) bytes (R13); encode references to data, not the data (R14)")
        }
        return RESTORED_OK
    }

    private static func append(
        key: UnsafeRawBufferPointer, value: restored_value, to writer: inout StateContainerWriter,
        resolve: (ObjectHandle) -> ObjectPath?
    ) -> (restored_status, Int) {
        let mark = writer.count
        writer.appendKey(key)
        let status = write(value, depth: 0, to: &writer, resolve: resolve)
        if status != RESTORED_OK { writer.truncate(to: mark) }
        return (status, writer.count)
    }

    override func containsKey(_ key: UnsafeRawBufferPointer) -> Bool {
        if super.containsKey(key) { return true }
        return writer.bytes.withUnsafeBytes { bytes in
            (try? StateContainerReader(bytes))?.value(forKey: key) != nil
        }
    }

    private static func write(
        _ value: restored_value, depth: Int, to writer: inout StateContainerWriter, resolve: (ObjectHandle) -> ObjectPath?
    ) -> restored_status {
        guard depth < StateValueView.maximumDepth else { return RESTORED_ERROR_INVALID_ARGUMENT }
        switch restored_value_type(rawValue: value.type) {
        case RESTORED_VALUE_BOOL:
            writer.appendBool(value.as.boolean)
        case RESTORED_VALUE_INT64:
            writer.appendInt64(value.as.int64)
        case RESTORED_VALUE_UINT64:
            writer.appendUInt64(value.as.uint64)
        case RESTORED_VALUE_DOUBLE:
            writer.appendDouble(value.as.float64)
        case RESTORED_VALUE_DATE:
            writer.appendDate(value.as.float64)
        case RESTORED_VALUE_STRING:
            guard let text = Self.buffer(value.as.string), StateContainerReader.isValidUTF8(text) else {
                return RESTORED_ERROR_INVALID_ARGUMENT
            }
            writer.appendString(text)
        case RESTORED_VALUE_BYTES:
            guard let bytes = Self.buffer(value.as.bytes.data, value.as.bytes.length) else { return RESTORED_ERROR_INVALID_ARGUMENT }
            writer.appendBytes(bytes)
        case RESTORED_VALUE_ARRAY:
            let count = value.as.array.count
            guard count == 0 || value.as.array.items != nil else { return RESTORED_ERROR_INVALID_ARGUMENT }
            let mark = writer.beginNested(.array, count: count)
            for index in 0..<count {
                let status = write(value.as.array.items![index], depth: depth + 1, to: &writer, resolve: resolve)
                if status != RESTORED_OK { return status }
            }
            writer.endNested(mark)
        case RESTORED_VALUE_DICTIONARY:
            let count = value.as.dictionary.count
            guard count == 0 || (value.as.dictionary.keys != nil && value.as.dictionary.values != nil) else {
                return RESTORED_ERROR_INVALID_ARGUMENT
            }
            let mark = writer.beginNested(.dictionary, count: count)
            for index in 0..<count {
                guard let key = Self.buffer(value.as.dictionary.keys![index]), StateContainerReader.isValidUTF8(key) else {
                    return RESTORED_ERROR_INVALID_ARGUMENT
                }
                writer.appendKey(key)
                let status = write(value.as.dictionary.values![index], depth: depth + 1, to: &writer, resolve: resolve)
                if status != RESTORED_OK { return status }
            }
            writer.endNested(mark)
        case RESTORED_VALUE_OBJECT:
            guard let object = value.as.object, let path = resolve(ObjectHandle(object)) else {
                return RESTORED_ERROR_UNKNOWN_OBJECT
            }
            writer.appendReference(path)
        default:
            return RESTORED_ERROR_INVALID_ARGUMENT
        }
        return RESTORED_OK
    }

    static func buffer(_ string: restored_string) -> UnsafeRawBufferPointer? {
        buffer(UnsafeRawPointer(string.data), string.length)
    }

    static func buffer(_ data: UnsafeRawPointer?, _ length: Int) -> UnsafeRawBufferPointer? {
        if length == 0 { return UnsafeRawBufferPointer(start: nil, count: 0) }
        guard let data else { return nil }
        return UnsafeRawBufferPointer(start: data, count: length)
    }
}
