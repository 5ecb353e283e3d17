/// A call of an exported method, as its handler sees it.
public struct DBusMethodCall: Sendable {
    /// The message.
    public let message: DBusMessage
    /// Its arguments.
    public let arguments: [DBusValue]
    /// The caller's unique bus name.
    public var sender: String? { message.sender }
    /// The connection it came in on, for looking up the caller.
    public let connection: DBusConnection

    /// The argument at `index` as a string, or an InvalidArgs error.
    public func string(at index: Int) throws(DBusError) -> String {
        guard index < arguments.count, let text = arguments[index].stringValue else {
            throw DBusError.invalidArguments("argument \(index + 1) must be a string")
        }
        return text
    }

    /// The argument at `index` as an array of strings, or an InvalidArgs error.
    public func strings(at index: Int) throws(DBusError) -> [String] {
        guard index < arguments.count, let items = arguments[index].arrayValue else {
            throw DBusError.invalidArguments("argument \(index + 1) must be an array of strings")
        }
        var texts: [String] = []
        for item in items {
            guard let text = item.stringValue else { throw DBusError.invalidArguments("argument \(index + 1) must be an array of strings") }
            texts.append(text)
        }
        return texts
    }

    /// The argument at `index` as a Boolean, or an InvalidArgs error.
    public func bool(at index: Int) throws(DBusError) -> Bool {
        guard index < arguments.count, let flag = arguments[index].boolValue else {
            throw DBusError.invalidArguments("argument \(index + 1) must be a boolean")
        }
        return flag
    }
}
