internal import CRestoredPlugin

/// The objects a plugin registered by path, for R8 step 3.
///
/// The host asks for every saved object of a restoration without a
/// restoration class, with a path in C. Most paths have no positions and no
/// "/" in their identifiers: those are kept under one string, their
/// identifiers joined with "/", which a lookup builds straight from the C
/// path. Building a ``RestorationPath`` instead, an array and a string per
/// component hashed one by one, was most of a restoration's lookups.
///
/// Both keys compare as ``RestorationPath`` does, by canonical equivalence:
/// "/" is a starter that composes with nothing, so a joined string is
/// equivalent to another exactly when their identifiers are, one by one.
/// A path with a position, or with "/" in an identifier, and the empty
/// path, are kept by their ``RestorationPath``; none can equal a path of
/// the other kind.
struct RegisteredObjects {
    private var byJoinedIdentifiers: [String: any RestorableObject] = [:]
    private var byPath: [RestorationPath: any RestorableObject] = [:]

    /// Whether nothing is registered.
    var isEmpty: Bool { byJoinedIdentifiers.isEmpty && byPath.isEmpty }

    /// The object registered at `path`, or nil; setting nil forgets it.
    subscript(path: RestorationPath) -> (any RestorableObject)? {
        get {
            if let key = Self.joinedIdentifiers(of: path) { return byJoinedIdentifiers[key] }
            return byPath[path]
        }
        set {
            if let key = Self.joinedIdentifiers(of: path) {
                byJoinedIdentifiers[key] = newValue
            } else {
                byPath[path] = newValue
            }
        }
    }

    /// The object registered at the path the host passed, or nil.
    func object(at path: UnsafePointer<restored_path>?) -> (any RestorableObject)? {
        guard let path, let components = path.pointee.components, path.pointee.count > 0 else {
            return byPath[RestorationPath([])]
        }
        let count = path.pointee.count
        var length = count - 1
        for index in 0..<count {
            let component = components[index]
            guard component.position < 0, !Self.containsSlash(component.identifier) else {
                return byPath[PluginInstanceBox.path(path)]
            }
            // A length without bytes reads as "", as CValues.swiftString has it.
            if component.identifier.length > 0, component.identifier.data != nil {
                length += component.identifier.length
            }
        }
        // Repairs ill-formed UTF-8 as CValues.swiftString does for each
        // component: "/" ends any sequence cut short before it.
        let key = String(unsafeUninitializedCapacity: length) { buffer in
            var offset = 0
            for index in 0..<count {
                if index > 0 {
                    buffer[offset] = UInt8(ascii: "/")
                    offset += 1
                }
                let identifier = components[index].identifier
                if identifier.length > 0, let data = identifier.data {
                    let bytes = UnsafeRawBufferPointer(start: data, count: identifier.length)
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[offset...]).initialize(fromContentsOf: bytes)
                    offset += identifier.length
                }
            }
            return offset
        }
        return byJoinedIdentifiers[key]
    }

    /// The identifiers of `path` joined by "/", or nil when it has a
    /// position or an identifier with "/" in it.
    private static func joinedIdentifiers(of path: RestorationPath) -> String? {
        guard !path.components.isEmpty else { return nil }
        var key = ""
        for (index, component) in path.components.enumerated() {
            guard component.position == nil, !component.identifier.utf8.contains(UInt8(ascii: "/")) else { return nil }
            if index > 0 { key.append("/") }
            key.append(component.identifier)
        }
        return key
    }

    private static func containsSlash(_ string: restored_string) -> Bool {
        guard string.length > 0, let data = string.data else { return false }
        return UnsafeRawBufferPointer(start: data, count: string.length).contains(UInt8(ascii: "/"))
    }
}
