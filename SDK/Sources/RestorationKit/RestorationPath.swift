/// The identifiers from a root object down to one object.
///
/// A path names an object in the archive. Its last component is the object's
/// own restoration identifier; a component may carry the position a
/// disambiguating container (a navigation stack) gave the object (R3).
public struct RestorationPath: Hashable, Sendable, CustomStringConvertible {
    /// One step of a path.
    public struct Component: Hashable, Sendable {
        /// The restoration identifier.
        public var identifier: String
        /// The position the container gave the object, or nil.
        public var position: Int?

        /// Creates a component.
        public init(_ identifier: String, position: Int? = nil) {
            self.identifier = identifier
            self.position = position
        }
    }

    /// The components, root first.
    public var components: [Component]

    /// Creates a path from components.
    public init(_ components: [Component]) {
        self.components = components
    }

    /// Creates a path from plain identifiers, root first.
    public init(_ identifiers: String...) {
        components = identifiers.map { Component($0) }
    }

    /// The identifiers, root first.
    public var identifiers: [String] { components.map(\.identifier) }

    /// The object's own identifier (the last component).
    public var last: String? { components.last?.identifier }

    /// The path of the parent object, or nil for a root.
    public var parent: RestorationPath? {
        components.count <= 1 ? nil : RestorationPath(Array(components.dropLast()))
    }

    /// This path with one more component.
    public func appending(_ identifier: String, position: Int? = nil) -> RestorationPath {
        var longer: [Component] = []
        longer.reserveCapacity(components.count + 1)
        longer.append(contentsOf: components)
        longer.append(Component(identifier, position: position))
        return RestorationPath(longer)
    }

    /// The path as text: `Main/Split/Stack/Detail[2]`.
    public var description: String {
        components.map { component in
            component.position.map { "\(component.identifier)[\($0)]" } ?? component.identifier
        }.joined(separator: "/")
    }
}
