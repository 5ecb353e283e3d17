public import RestoredState

/// One preserved object in an ``Archive``: its path, its class, and its
/// encoded state.
public struct ArchivedObject: Hashable, Sendable {
    /// How the object was reached during preservation.
    public enum Kind: UInt8, Hashable, Sendable, CaseIterable {
        /// A child of its parent in the object tree.
        case child = 0
        /// An object presented (modally) by its parent container (R4).
        case presented = 1
        /// An object saved by hand through the delegate's app-wide coder (R14).
        case manual = 2
    }

    /// The object's restoration path.
    public var path: ObjectPath
    /// The name of the object's class, checked at restore (R10).
    public var className: String
    /// The registered restoration class that recreates the object, if any (R8).
    public var restorationClass: String?
    /// How the object was reached.
    public var kind: Kind
    /// The object's encoded keyed container: opaque bytes to this module.
    public var state: [UInt8]

    /// Creates an archived object.
    public init(
        path: ObjectPath,
        className: String,
        restorationClass: String? = nil,
        kind: Kind = .child,
        state: [UInt8] = []
    ) {
        self.path = path
        self.className = className
        self.restorationClass = restorationClass
        self.kind = kind
        self.state = state
    }
}
