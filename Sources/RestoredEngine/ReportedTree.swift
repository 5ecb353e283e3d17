/// The tree a plugin reported in one `list_tree` call: every object, each
/// after its parent.
///
/// The children of each object are kept as links between indices (its first
/// child, then each child's next sibling), in the order reported, not as an
/// array per object: the preservation walk reads each list once or twice.
public struct ReportedTree: Sendable {
    /// The objects, in the order the plugin reported them.
    public let objects: [ReportedObject]
    /// The roots, as indices in ``objects``, in their order.
    public let roots: [Int]
    /// Each object's first child, or -1.
    private let firstChild: [Int]
    /// Each object's next sibling under the same parent, or -1.
    private let nextSibling: [Int]

    /// The tree of `objects`, each under the object at its index in
    /// `parents` (-1 for a root). The sink that collects them checks that a
    /// parent comes before its children; this traps when one does not.
    init(objects: [ReportedObject], parents: [Int]) {
        precondition(objects.count == parents.count, "one parent per object")
        var roots: [Int] = []
        var firstChild = [Int](repeating: -1, count: objects.count)
        var nextSibling = [Int](repeating: -1, count: objects.count)
        var lastChild = [Int](repeating: -1, count: objects.count)
        for (index, parent) in parents.enumerated() {
            guard parent >= 0 else {
                roots.append(index)
                continue
            }
            precondition(parent < index, "a parent is reported before its children")
            if lastChild[parent] < 0 {
                firstChild[parent] = index
            } else {
                nextSibling[lastChild[parent]] = index
            }
            lastChild[parent] = index
        }
        self.objects = objects
        self.roots = roots
        self.firstChild = firstChild
        self.nextSibling = nextSibling
    }

    /// The children and presented objects of the object at `index`, as
    /// indices in ``objects``, in the order reported.
    public func children(of index: Int) -> Children {
        Children(upcoming: firstChild[index], nextSibling: nextSibling)
    }

    /// The indices of one object's children, in their order.
    public struct Children: Sequence, IteratorProtocol {
        fileprivate var upcoming: Int
        fileprivate let nextSibling: [Int]

        /// The next child's index, or nil after the last.
        public mutating func next() -> Int? {
            guard upcoming >= 0 else { return nil }
            defer { upcoming = nextSibling[upcoming] }
            return upcoming
        }
    }
}
