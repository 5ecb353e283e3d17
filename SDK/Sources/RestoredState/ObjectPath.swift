/// The restoration path of an archived object: the identifiers from a root
/// object down to the object, like `MainWindow/Split/Detail[2]`.
public struct ObjectPath: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// One step of a path: an identifier, and a position where the container
    /// tells apart siblings with the same identifier (R3).
    public struct Component: Hashable, Sendable, CustomStringConvertible, Comparable {
        /// The object's restoration identifier.
        public var identifier: String
        /// The object's position among its siblings, or nil. Never negative.
        public var position: Int64? {
            didSet { precondition((position ?? 0) >= 0, "an object path position cannot be negative") }
        }

        /// Creates a component.
        ///
        /// - Precondition: `position` is nil or not negative.
        public init(identifier: String, position: Int64? = nil) {
            precondition((position ?? 0) >= 0, "an object path position cannot be negative")
            self.identifier = identifier
            self.position = position
        }

        /// The identifier, followed by `[position]` when there is one.
        public var description: String {
            if let position {
                return "\(identifier)[\(position)]"
            }
            return identifier
        }

        /// Orders by identifier (byte-wise), then position (none first).
        public static func < (lhs: Component, rhs: Component) -> Bool {
            if lhs.identifier != rhs.identifier {
                return lhs.identifier.utf8.lexicographicallyPrecedes(rhs.identifier.utf8)
            }
            switch (lhs.position, rhs.position) {
            case (nil, .some): return true
            case (.some(let left), .some(let right)): return left < right
            default: return false
            }
        }
    }

    /// The components, root first.
    public var components: [Component]

    /// Creates a path from its components, root first.
    public init(_ components: [Component] = []) {
        self.components = components
    }

    /// Creates a path of components without positions.
    public init(identifiers: String...) {
        self.components = identifiers.map { Component(identifier: $0) }
    }

    /// This path with `component` added at the end.
    public func appending(_ component: Component) -> ObjectPath {
        // One allocation of the exact size: `components + [component]`
        // allocated the one-element array, then grew the copy.
        var longer: [Component] = []
        longer.reserveCapacity(components.count + 1)
        longer.append(contentsOf: components)
        longer.append(component)
        return ObjectPath(longer)
    }

    /// This path with a component made of `identifier` and `position` added at the end.
    public func appending(_ identifier: String, position: Int64? = nil) -> ObjectPath {
        appending(Component(identifier: identifier, position: position))
    }

    /// The path of the parent object, or nil for a root object (and the empty path).
    public var parent: ObjectPath? {
        guard components.count > 1 else { return nil }
        return ObjectPath(Array(components.dropLast()))
    }

    /// The number of components.
    public var depth: Int { components.count }

    /// The components joined by `/`, like `MainWindow/Split/Detail[2]`.
    public var description: String {
        components.map(\.description).joined(separator: "/")
    }

    /// Orders component by component; a path comes before its descendants.
    public static func < (lhs: ObjectPath, rhs: ObjectPath) -> Bool {
        lhs.components.lexicographicallyPrecedes(rhs.components)
    }
}
