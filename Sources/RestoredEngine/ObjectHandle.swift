/// A plugin's object, as the engine knows it: an opaque token the plugin
/// handed out during the current walk.
public struct ObjectHandle: Hashable, Sendable, CustomStringConvertible {
    /// The token's bits (the plugin's `restored_object *`).
    public let rawValue: UInt

    /// Wraps a token.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    init(_ pointer: OpaquePointer) {
        rawValue = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(pointer)))
    }

    var pointer: OpaquePointer? {
        OpaquePointer(bitPattern: rawValue)
    }

    /// The token in hexadecimal.
    public var description: String { "0x" + String(rawValue, radix: 16) }
}
