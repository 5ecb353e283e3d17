import RestoredState

extension ObjectPath {
    /// The path without its last component (the root's parent is the root).
    var parent: ObjectPath { ObjectPath(Array(components.dropLast())) }
}
