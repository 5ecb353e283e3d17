/// What a plugin reported about one object during a walk.
public struct ReportedObject: Hashable, Sendable {
    /// The object.
    public var handle: ObjectHandle
    /// Its restoration identifier; empty means it is not preserved (R1).
    public var identifier: String
    /// Its class name (R10).
    public var className: String
    /// Its restoration class, or nil (R8).
    public var restorationClass: String?
    /// Presented (modal) rather than a child (R4).
    public var isPresented: Bool
    /// Objects presented by its descendants hang under it (R4).
    public var definesPresentationContext: Bool
    /// Its children get position components (R3).
    public var disambiguatesChildren: Bool
    /// Reported by `list_tree` without its children, which it listed at an
    /// earlier place of the tree: `list_objects` gives them (R2).
    public var hasUnlistedChildren: Bool

    /// Creates a report.
    public init(
        handle: ObjectHandle, identifier: String, className: String, restorationClass: String?,
        isPresented: Bool = false, definesPresentationContext: Bool = false, disambiguatesChildren: Bool = false,
        hasUnlistedChildren: Bool = false
    ) {
        self.handle = handle
        self.identifier = identifier
        self.className = className
        self.restorationClass = restorationClass
        self.isPresented = isPresented
        self.definesPresentationContext = definesPresentationContext
        self.disambiguatesChildren = disambiguatesChildren
        self.hasUnlistedChildren = hasUnlistedChildren
    }
}
