internal import CDBus

#if canImport(Glibc)
import Glibc
#endif

/// A D-Bus message (method call, reply, error or signal), immutable once built.
///
/// Unchecked Sendable: the wrapped libdbus message is never modified after
/// construction, and libdbus reference counting is thread-safe once
/// `dbus_threads_init_default` ran (``DBusConnection`` makes sure it did).
public final class DBusMessage: @unchecked Sendable {
    /// The kind of message.
    public enum Kind: Sendable {
        /// A method call.
        case methodCall
        /// A method's reply.
        case methodReturn
        /// An error reply.
        case error
        /// A signal.
        case signal
        /// Something newer than this code knows.
        case other
    }

    let pointer: OpaquePointer

    /// Takes over one reference of `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Adds a reference to `pointer`.
    init(retaining pointer: OpaquePointer) {
        dbus_message_ref(pointer)
        self.pointer = pointer
    }

    deinit {
        dbus_message_unref(pointer)
    }

    // MARK: Building

    /// A method call.
    public static func methodCall(
        destination: String?, path: String, interface: String?, member: String, arguments: [DBusValue] = []
    ) throws(DBusError) -> DBusMessage {
        guard let raw = dbus_message_new_method_call(destination, path, interface, member) else {
            throw DBusError.invalidArguments("cannot build a call of \(interface ?? "").\(member) on \(path)")
        }
        let message = DBusMessage(taking: raw)
        try message.append(arguments)
        return message
    }

    /// A signal.
    public static func signal(path: String, interface: String, member: String, arguments: [DBusValue] = []) throws(DBusError) -> DBusMessage {
        guard let raw = dbus_message_new_signal(path, interface, member) else {
            throw DBusError.invalidArguments("cannot build the signal \(interface).\(member) on \(path)")
        }
        let message = DBusMessage(taking: raw)
        try message.append(arguments)
        return message
    }

    /// The reply to this call.
    public func reply(_ arguments: [DBusValue] = []) throws(DBusError) -> DBusMessage {
        guard let raw = dbus_message_new_method_return(pointer) else { throw DBusError.failed("out of memory") }
        let message = DBusMessage(taking: raw)
        try message.append(arguments)
        return message
    }

    /// An error reply to this call.
    public func errorReply(_ error: DBusError) -> DBusMessage? {
        dbus_message_new_error(pointer, error.name, error.message).map(DBusMessage.init(taking:))
    }

    /// Whether the caller asked for no reply.
    public var expectsReply: Bool { dbus_message_get_no_reply(pointer) == 0 }

    // MARK: Header

    /// The kind.
    public var kind: Kind {
        switch dbus_message_get_type(pointer) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL: .methodCall
        case DBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
        case DBUS_MESSAGE_TYPE_ERROR: .error
        case DBUS_MESSAGE_TYPE_SIGNAL: .signal
        default: .other
        }
    }

    /// The object path.
    public var path: String? { dbus_message_get_path(pointer).map { String(cString: $0) } }
    /// The interface.
    public var interface: String? { dbus_message_get_interface(pointer).map { String(cString: $0) } }
    /// The member (method or signal name).
    public var member: String? { dbus_message_get_member(pointer).map { String(cString: $0) } }
    /// The unique name of the sender.
    public var sender: String? { dbus_message_get_sender(pointer).map { String(cString: $0) } }
    /// The destination.
    public var destination: String? { dbus_message_get_destination(pointer).map { String(cString: $0) } }
    /// The body's signature.
    public var signature: String { dbus_message_get_signature(pointer).map { String(cString: $0) } ?? "" }
    /// The error name of an error reply.
    public var errorName: String? { dbus_message_get_error_name(pointer).map { String(cString: $0) } }

    // MARK: Body

    /// The arguments. Unix file descriptors come as duplicates the values own.
    public func arguments() throws(DBusError) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(pointer, &iterator) != 0 else { return [] }
        var values: [DBusValue] = []
        repeat {
            values.append(try Self.read(&iterator))
        } while dbus_message_iter_next(&iterator) != 0
        return values
    }

    /// The error this error reply carries.
    public var error: DBusError? {
        guard kind == .error else { return nil }
        let text = (try? arguments())?.first?.stringValue ?? ""
        return DBusError(name: errorName ?? "org.freedesktop.DBus.Error.Failed", message: text)
    }

    func append(_ arguments: [DBusValue]) throws(DBusError) {
        guard !arguments.isEmpty else { return }
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(pointer, &iterator)
        for argument in arguments {
            try Self.write(argument, to: &iterator)
        }
    }

    // MARK: Coding

    private static func read(_ iterator: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iterator)
        func basic<T>(_ initial: T) -> T {
            var value = initial
            withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iterator, UnsafeMutableRawPointer($0)) }
            return value
        }
        switch type {
        case c_restored_dbus_type_byte: return .byte(basic(UInt8(0)))
        case c_restored_dbus_type_boolean: return .boolean(basic(UInt32(0)) != 0)
        case c_restored_dbus_type_int16: return .int16(basic(Int16(0)))
        case c_restored_dbus_type_uint16: return .uint16(basic(UInt16(0)))
        case c_restored_dbus_type_int32: return .int32(basic(Int32(0)))
        case c_restored_dbus_type_uint32: return .uint32(basic(UInt32(0)))
        case c_restored_dbus_type_int64: return .int64(basic(Int64(0)))
        case c_restored_dbus_type_uint64: return .uint64(basic(UInt64(0)))
        case c_restored_dbus_type_double: return .double(basic(Double(0)))
        case c_restored_dbus_type_string, c_restored_dbus_type_object_path, c_restored_dbus_type_signature:
            let text = basic(UnsafePointer<CChar>?.none).map { String(cString: $0) } ?? ""
            return type == c_restored_dbus_type_string ? .string(text) : type == c_restored_dbus_type_object_path ? .objectPath(text) : .signature(text)
        case c_restored_dbus_type_unix_fd:
            // libdbus duplicates the descriptor: this value owns the copy.
            return .unixFD(DBusFileDescriptor(owning: basic(Int32(-1))))
        case c_restored_dbus_type_variant:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return .variant(try read(&inner))
        case c_restored_dbus_type_struct, c_restored_dbus_type_dict_entry:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            var fields: [DBusValue] = []
            if dbus_message_iter_get_arg_type(&inner) != c_restored_dbus_type_invalid {
                repeat { fields.append(try read(&inner)) } while dbus_message_iter_next(&inner) != 0
            }
            return .structure(fields)
        case c_restored_dbus_type_array:
            let elementSignature = dbus_message_iter_get_signature(&iterator).map { raw -> String in
                defer { dbus_free(raw) }
                return String(String(cString: raw).dropFirst())
            } ?? ""
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            var items: [DBusValue] = []
            if dbus_message_iter_get_arg_type(&inner) != c_restored_dbus_type_invalid {
                repeat { items.append(try read(&inner)) } while dbus_message_iter_next(&inner) != 0
            }
            if elementSignature.hasPrefix("{"), elementSignature.count >= 4 {
                let body = elementSignature.dropFirst().dropLast()
                let keySignature = String(body.prefix(1))
                let entries = items.compactMap { item -> DBusDictionaryEntry? in
                    guard case .structure(let pair) = item, pair.count == 2 else { return nil }
                    return DBusDictionaryEntry(key: pair[0], value: pair[1])
                }
                return .dictionary(keySignature: keySignature, valueSignature: String(body.dropFirst()), entries)
            }
            return .array(elementSignature: elementSignature, items)
        default:
            throw DBusError.invalidArguments("unsupported D-Bus type \(type) in a message")
        }
    }

    private static func write(_ value: DBusValue, to iterator: inout DBusMessageIter) throws(DBusError) {
        func basic<T>(_ type: Int32, _ value: T) -> Bool {
            var value = value
            return withUnsafePointer(to: &value) { dbus_message_iter_append_basic(&iterator, type, UnsafeRawPointer($0)) } != 0
        }
        func text(_ type: Int32, _ string: String) -> Bool {
            string.withCString { pointer in basic(type, pointer) }
        }
        func container(_ type: Int32, _ signature: String?, _ body: (inout DBusMessageIter) throws(DBusError) -> Void) throws(DBusError) {
            var inner = DBusMessageIter()
            let opened = signature.map { signature in
                signature.withCString { dbus_message_iter_open_container(&iterator, type, $0, &inner) }
            } ?? dbus_message_iter_open_container(&iterator, type, nil, &inner)
            guard opened != 0 else { throw DBusError.failed("out of memory writing a message") }
            do {
                try body(&inner)
            } catch {
                dbus_message_iter_abandon_container(&iterator, &inner)
                throw error
            }
            guard dbus_message_iter_close_container(&iterator, &inner) != 0 else { throw DBusError.failed("out of memory writing a message") }
        }
        let written: Bool
        switch value {
        case .byte(let number): written = basic(c_restored_dbus_type_byte, number)
        case .boolean(let flag): written = basic(c_restored_dbus_type_boolean, UInt32(flag ? 1 : 0))
        case .int16(let number): written = basic(c_restored_dbus_type_int16, number)
        case .uint16(let number): written = basic(c_restored_dbus_type_uint16, number)
        case .int32(let number): written = basic(c_restored_dbus_type_int32, number)
        case .uint32(let number): written = basic(c_restored_dbus_type_uint32, number)
        case .int64(let number): written = basic(c_restored_dbus_type_int64, number)
        case .uint64(let number): written = basic(c_restored_dbus_type_uint64, number)
        case .double(let number): written = basic(c_restored_dbus_type_double, number)
        case .string(let string):
            guard dbus_validate_utf8(string, nil) != 0 else { throw DBusError.invalidArguments("a string is not valid UTF-8") }
            written = text(c_restored_dbus_type_string, string)
        case .objectPath(let path):
            guard dbus_validate_path(path, nil) != 0 else { throw DBusError.invalidArguments("\"\(path)\" is not an object path") }
            written = text(c_restored_dbus_type_object_path, path)
        case .signature(let signature):
            guard dbus_signature_validate(signature, nil) != 0 else { throw DBusError.invalidArguments("\"\(signature)\" is not a signature") }
            written = text(c_restored_dbus_type_signature, signature)
        case .unixFD(let descriptor):
            // libdbus duplicates it: the value keeps its own.
            written = basic(c_restored_dbus_type_unix_fd, descriptor.rawValue)
        case .variant(let inner):
            try container(c_restored_dbus_type_variant, inner.signature) { (nested: inout DBusMessageIter) throws(DBusError) in try write(inner, to: &nested) }
            written = true
        case .structure(let fields):
            try container(c_restored_dbus_type_struct, nil) { (nested: inout DBusMessageIter) throws(DBusError) in
                for field in fields { try write(field, to: &nested) }
            }
            written = true
        case .array(let elementSignature, let items):
            for item in items where item.signature != elementSignature {
                throw DBusError.invalidArguments("an array of \(elementSignature) holds a \(item.signature)")
            }
            try container(c_restored_dbus_type_array, elementSignature) { (nested: inout DBusMessageIter) throws(DBusError) in
                for item in items { try write(item, to: &nested) }
            }
            written = true
        case .dictionary(let keySignature, let valueSignature, let entries):
            try container(c_restored_dbus_type_array, "{" + keySignature + valueSignature + "}") { (nested: inout DBusMessageIter) throws(DBusError) in
                for entry in entries {
                    guard entry.key.signature == keySignature, entry.value.signature == valueSignature else {
                        throw DBusError.invalidArguments("a dictionary entry does not match {\(keySignature)\(valueSignature)}")
                    }
                    var pair = DBusMessageIter()
                    guard dbus_message_iter_open_container(&nested, c_restored_dbus_type_dict_entry, nil, &pair) != 0 else {
                        throw DBusError.failed("out of memory writing a message")
                    }
                    try write(entry.key, to: &pair)
                    try write(entry.value, to: &pair)
                    guard dbus_message_iter_close_container(&nested, &pair) != 0 else { throw DBusError.failed("out of memory writing a message") }
                }
            }
            written = true
        }
        guard written else { throw DBusError.failed("out of memory writing a \(value.signature)") }
    }
}
