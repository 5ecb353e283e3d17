public import RestoredState

/// An object a save carried over from the archive before it: the app could
/// not say it at that save (an instance that did not answer), so its state
/// and its subtree are the ones saved last, as they were then.
///
/// A plugin asks for it while encoding the object (`StateCoder`'s
/// `carryOverFromLastArchive()`); restored fills it in from the app's
/// newest archive when it writes the new one. Restore reads a carried
/// object like any other; `restored-ctl show` says which objects were
/// carried and since when.
public struct CarriedObject: Hashable, Sendable, CustomStringConvertible {
    /// The object's restoration path: its subtree is carried with it.
    public var path: ObjectPath
    /// When the app last said this object's state itself: nanoseconds since
    /// 1970-01-01 00:00 UTC. An object carried again keeps the time of the
    /// save it came from; 0 in a plugin host's archive, before restored
    /// filled it in.
    public var since: Int64

    /// Creates a record.
    public init(path: ObjectPath, since: Int64 = 0) {
        self.path = path
        self.since = since
    }

    /// `Root/Panel`.
    public var description: String { path.description }
}
