/// A D-Bus error: a name like `org.restored1.Error.UnknownApp` and a message.
///
/// Errors returned by a remote method arrive as this type; a handler of an
/// exported method throws it to reply with that error name.
public struct DBusError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error name.
    public var name: String
    /// The message for people.
    public var message: String

    /// Creates an error.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// `name: message`.
    public var description: String { "\(name): \(message)" }

    /// `org.freedesktop.DBus.Error.Failed`.
    public static func failed(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.Failed", message: message)
    }

    /// `org.freedesktop.DBus.Error.InvalidArgs`.
    public static func invalidArguments(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }

    /// `org.freedesktop.DBus.Error.AccessDenied`.
    public static func accessDenied(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.AccessDenied", message: message)
    }

    /// `org.freedesktop.DBus.Error.UnknownMethod`.
    public static func unknownMethod(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: message)
    }

    /// `org.freedesktop.DBus.Error.UnknownProperty`.
    public static func unknownProperty(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.UnknownProperty", message: message)
    }

    /// `org.freedesktop.DBus.Error.NoReply`: a call timed out.
    public static let noReplyName = "org.freedesktop.DBus.Error.NoReply"

    /// `org.freedesktop.DBus.Error.Disconnected`.
    public static func disconnected(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.Disconnected", message: message)
    }
}
