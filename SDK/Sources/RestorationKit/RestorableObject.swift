/// An object whose state can be preserved and restored: a window, a pane, a
/// list, a text field.
///
/// Only objects with a non-empty ``restorationIdentifier`` are preserved
/// (R1), and only when every ancestor has one too (R2).
public protocol RestorableObject: AnyObject {
    /// The name of this object among its siblings; nil opts it out, with its
    /// whole subtree (R1, R2).
    var restorationIdentifier: String? { get set }

    /// The class that recreates this object at restoration (R8 step 1), or
    /// nil to let the delegate or the registered objects provide it.
    var restorationClass: (any RestorationClass.Type)? { get set }

    /// The child objects, in order.
    ///
    /// Read at every save for each object with an identifier that the tree
    /// reaches, before anything is encoded (the SDK gives restored the
    /// whole tree in one call), also below objects restored then leaves out
    /// (a path taken twice, R3): keep it cheap, and free of side effects.
    var restorationChildren: [any RestorableObject] { get }

    /// Objects this object presents modally (R4). They hang under the nearest
    /// object that ``definesPresentationContext``, or under the root.
    var presentedObjects: [any RestorableObject] { get }

    /// Whether objects presented by descendants hang under this object (R4).
    var definesPresentationContext: Bool { get }

    /// Whether this container tells its children apart by position, as a
    /// navigation stack does, so children may share an identifier (R3).
    var disambiguatesChildren: Bool { get }

    /// The class name recorded in the archive, for the class check (R10).
    var restorationClassName: String { get }

    /// Encodes this object's state: references to data, selection, view
    /// configuration; for containers, references to children (R14).
    func encodeRestorableState(with coder: StateCoder) throws

    /// Decodes the state written by ``encodeRestorableState(with:)`` (R9).
    func decodeRestorableState(with coder: StateCoder) throws

    /// Called on every restored object once all objects are decoded (R9).
    func finishedRestoringState()
}

extension RestorableObject {
    /// No children.
    public var restorationChildren: [any RestorableObject] { [] }
    /// Presents nothing.
    public var presentedObjects: [any RestorableObject] { [] }
    /// Not a presentation context.
    public var definesPresentationContext: Bool { false }
    /// Children are told apart by identifier alone.
    public var disambiguatesChildren: Bool { false }
    /// The Swift type name.
    public var restorationClassName: String { String(reflecting: type(of: self)) }
    /// Encodes nothing.
    public func encodeRestorableState(with coder: StateCoder) throws {}
    /// Decodes nothing.
    public func decodeRestorableState(with coder: StateCoder) throws {}
    /// Does nothing.
    public func finishedRestoringState() {}
}
