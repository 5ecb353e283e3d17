internal import CRestoredPlugin

/// The objects a plugin registered by path (R8 step 3), found from the path
/// the host passes in C.
///
/// A restoration looks up nearly every saved object here, and building a
/// ``RestorationPath`` of Swift strings for each lookup, then hashing and
/// comparing it, cost a fifth of a restoration walk. So a path made only of
/// ASCII (nearly all are) is also kept as a key of bytes (each identifier's
/// length, bytes and position), all keys in one buffer; the host's path is
/// written as such a key on the stack, hashed and compared byte for byte,
/// without a string or a reference count. For ASCII, equal bytes are equal
/// strings. Any other lookup, and an ASCII one that finds nothing while a
/// path of other characters is registered, goes through ``RestorationPath``
/// as before, whose strings compare by canonical equivalence (a registered
/// "Cafe\u{301}" matches a saved "Caf\u{E9}"). A class: the lookups read it
/// through the plugin's context, and a struct of these eight tables would
/// be copied, and each table retained, at every lookup.
final class RegisteredObjects {
    /// Every registered object.
    private var byPath: [RestorationPath: any RestorableObject] = [:]
    /// The keys of the ASCII paths, one after another.
    private var keys: [UInt8] = []
    /// Per ASCII path (a slot): where its key starts in `keys` and ends.
    private var keyStarts: [Int] = []
    private var keyEnds: [Int] = []
    /// Per slot: its object, nil once unregistered.
    private var objects: [(any RestorableObject)?] = []
    /// Per slot: the next slot whose key has the same hash, or -1.
    private var nextSlots: [Int] = []
    /// The first slot of each key hash.
    private var firstSlots: [Int: Int] = [:]
    /// How many registered paths are not ASCII.
    private var otherCount = 0

    /// Whether nothing is registered.
    var isEmpty: Bool { byPath.isEmpty }

    /// Registers `object` at `path`, replacing what was there.
    func register(_ object: any RestorableObject, at path: RestorationPath) {
        let isNew = byPath.updateValue(object, forKey: path) == nil
        guard let key = Self.key(of: path) else {
            if isNew { otherCount += 1 }
            return
        }
        let hash = key.withUnsafeBytes { Self.hash($0) }
        if let slot = slot(of: key, hash: hash) {
            objects[slot] = object
            return
        }
        keyStarts.append(keys.count)
        keys.append(contentsOf: key)
        keyEnds.append(keys.count)
        objects.append(object)
        nextSlots.append(firstSlots[hash] ?? -1)
        firstSlots[hash] = objects.count - 1
    }

    /// Forgets the object registered at `path`.
    func unregister(at path: RestorationPath) {
        guard byPath.removeValue(forKey: path) != nil else { return }
        guard let key = Self.key(of: path) else {
            otherCount -= 1
            return
        }
        // The slot stays, empty, for the path's next registration.
        if let slot = slot(of: key, hash: key.withUnsafeBytes { Self.hash($0) }) { objects[slot] = nil }
    }

    /// The object registered at the host's `path`, or nil.
    func object(at path: UnsafePointer<restored_path>?) -> (any RestorableObject)? {
        guard let path, let base = path.pointee.components else { return byPath[PluginInstanceBox.path(path)] }
        let components = UnsafeBufferPointer(start: base, count: path.pointee.count)
        var byteCount = 0
        var isASCII = true
        for component in components {
            let identifier = Self.bytes(of: component)
            byteCount += Self.fixedBytesPerComponent + identifier.count
            if isASCII { isASCII = !identifier.contains { $0 >= 0x80 } }
        }
        if isASCII {
            let found = withUnsafeTemporaryAllocation(byteCount: max(byteCount, 1), alignment: 1) { buffer in
                var offset = 0
                for component in components {
                    Self.write(Self.bytes(of: component), position: component.position < 0 ? -1 : component.position, to: buffer, at: &offset)
                }
                let key = UnsafeRawBufferPointer(rebasing: buffer[..<byteCount])
                return slot(of: key, hash: Self.hash(key))
            }
            if let found, let object = objects[found] { return object }
            // Equal bytes are the only way two ASCII paths are equal.
            if otherCount == 0 { return nil }
        }
        return byPath[PluginInstanceBox.path(path)]
    }

    // MARK: Keys

    /// Per component: the identifier's length (4 bytes) and its position (8).
    private static let fixedBytesPerComponent = 12

    /// The slot whose key is `key`, or nil.
    private func slot(of key: [UInt8], hash: Int) -> Int? {
        key.withUnsafeBytes { slot(of: $0, hash: hash) }
    }

    private func slot(of key: UnsafeRawBufferPointer, hash: Int) -> Int? {
        var slot = firstSlots[hash] ?? -1
        while slot >= 0 {
            let start = keyStarts[slot], end = keyEnds[slot]
            if end - start == key.count {
                let equal = keys.withUnsafeBytes { stored in
                    key.isEmpty || memcmp(stored.baseAddress! + start, key.baseAddress!, key.count) == 0
                }
                if equal { return slot }
            }
            slot = nextSlots[slot]
        }
        return nil
    }

    /// The key of a path all of ASCII, or nil.
    private static func key(of path: RestorationPath) -> [UInt8]? {
        var key: [UInt8] = []
        for component in path.components {
            guard component.identifier.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
            // As the host passes positions: -1 for none. A negative one of
            // the plugin's own matches no path the host passes.
            let position = component.position.map { $0 >= 0 ? Int64($0) : -2 } ?? -1
            var identifier = component.identifier
            identifier.withUTF8 { utf8 in
                let start = key.count
                key.append(contentsOf: repeatElement(0, count: fixedBytesPerComponent + utf8.count))
                var offset = start
                key.withUnsafeMutableBytes { write(UnsafeRawBufferPointer(utf8), position: position, to: $0, at: &offset) }
            }
        }
        return key
    }

    /// Writes one component's part of a key at `offset`, and moves it on.
    private static func write(_ identifier: UnsafeRawBufferPointer, position: Int64, to buffer: UnsafeMutableRawBufferPointer, at offset: inout Int) {
        buffer.storeBytes(of: UInt32(identifier.count).littleEndian, toByteOffset: offset, as: UInt32.self)
        offset += 4
        if !identifier.isEmpty {
            (buffer.baseAddress! + offset).copyMemory(from: identifier.baseAddress!, byteCount: identifier.count)
        }
        offset += identifier.count
        buffer.storeBytes(of: position.littleEndian, toByteOffset: offset, as: Int64.self)
        offset += 8
    }

    private static func hash(_ key: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: key)
        return hasher.finalize()
    }

    private static func bytes(of component: restored_path_component) -> UnsafeRawBufferPointer {
        guard let data = component.identifier.data else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: data, count: component.identifier.length)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
