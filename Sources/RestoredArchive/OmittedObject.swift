public import RestoredState

/// An object a walk left out, with why: dropped at a save (its budget, a
/// reserved key, an encoding error, a duplicate path) or not restored (no
/// object found for its path, its restoration class declined it ...).
///
/// The empty path stands for the app-wide state of the delegate's coder.
public struct OmittedObject: Hashable, Sendable, CustomStringConvertible {
    /// The object's restoration path; empty for the app-wide state.
    public var path: ObjectPath
    /// Why it was left out, in one sentence for people.
    public var reason: String

    /// Creates a record.
    public init(path: ObjectPath, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// What `restored-ctl` prints for the path: the app-wide state has none.
    public var pathText: String { path.components.isEmpty ? "(app-wide state)" : path.description }

    /// `Root/Panel: reason`.
    public var description: String { "\(pathText): \(reason)" }
}
