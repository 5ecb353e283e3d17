extension StateContainerWriter {
    /// Appends entries a plugin handed over, checking every byte: UTF-8 keys
    /// and strings, structure, nesting depth, no reserved key (R5), and
    /// object handles replaced by the paths `resolve` gives (R14).
    ///
    /// On error nothing is appended.
    public mutating func appendPluginEntries(
        _ input: UnsafeRawBufferPointer, resolve: (UInt64) -> ObjectPath?
    ) throws(PluginEntriesError) {
        // First a pass that only checks: entries without object handles (most)
        // are then copied whole; otherwise a second pass rewrites the handles.
        var hasHandles = false
        try pass(input, writing: false, hasHandles: &hasHandles, resolve: resolve)
        guard hasHandles else {
            appendRaw(input)
            return
        }
        let mark = count
        do throws(PluginEntriesError) {
            try pass(input, writing: true, hasHandles: &hasHandles, resolve: resolve)
        } catch {
            truncate(to: mark)
            throw error
        }
    }

    private mutating func pass(
        _ input: UnsafeRawBufferPointer, writing: Bool, hasHandles: inout Bool, resolve: (UInt64) -> ObjectPath?
    ) throws(PluginEntriesError) {
        var cursor = ByteCursor<StateFormatError>(input)
        while !cursor.isAtEnd {
            let keyRange = try Self.formatted { () throws(StateFormatError) in try cursor.readStringRange() }
            let key = UnsafeRawBufferPointer(rebasing: input[keyRange])
            if StateTag.isReservedKey(key) { throw PluginEntriesError.reservedKey(String(decoding: key, as: UTF8.self)) }
            if writing { appendKey(key) }
            do throws(PluginEntriesError) {
                try appendPluginValue(&cursor, depth: 0, writing: writing, hasHandles: &hasHandles, resolve: resolve)
            } catch .unknownObject {
                throw .unknownObject(key: String(decoding: key, as: UTF8.self))
            }
        }
    }

    private mutating func appendPluginValue(
        _ cursor: inout ByteCursor<StateFormatError>, depth: Int, writing: Bool, hasHandles: inout Bool, resolve: (UInt64) -> ObjectPath?
    ) throws(PluginEntriesError) {
        let start = cursor.offset
        guard depth < StateValueView.maximumDepth else {
            throw .malformed(StateFormatError("values nested deeper than \(StateValueView.maximumDepth) levels", at: start))
        }
        let rawTag = try Self.formatted { () throws(StateFormatError) in try cursor.readByte() }
        guard let tag = StateTag(rawValue: rawTag) else {
            throw .malformed(StateFormatError("unknown value tag 0x\(String(rawTag, radix: 16))", at: start))
        }
        switch tag {
        case .boolFalse, .boolTrue:
            break
        case .int64, .uint64:
            _ = try Self.formatted { () throws(StateFormatError) in try cursor.readVarint() }
        case .double, .date:
            _ = try Self.formatted { () throws(StateFormatError) in try cursor.readUInt64() }
        case .string:
            _ = try Self.formatted { () throws(StateFormatError) in try cursor.readStringRange() }
        case .bytes:
            _ = try Self.formatted { () throws(StateFormatError) in try cursor.readBlobRange() }
        case .reference:
            // A path written by the plugin itself: copied once it checks out.
            let range = try Self.formatted { () throws(StateFormatError) in try cursor.readSlice(Int(try cursor.readUInt32())) }
            _ = try Self.formatted { () throws(StateFormatError) in
                try StateValueView(tag: .reference, base: cursor.base, payload: range).referencePath()
            }
        case .objectHandle:
            let handle = try Self.formatted { () throws(StateFormatError) in try cursor.readUInt64() }
            hasHandles = true
            guard writing else { return }
            guard let path = resolve(handle) else { throw .unknownObject(key: "") }
            appendReference(path)
            return
        case .array, .dictionary:
            let length = try Self.formatted { () throws(StateFormatError) in try cursor.readUInt32() }
            let range = try Self.formatted { () throws(StateFormatError) in try cursor.readSlice(Int(length)) }
            var inner = ByteCursor<StateFormatError>(cursor.base, from: range.lowerBound, to: range.upperBound)
            let countOffset = inner.offset
            let elements = try Self.formatted { () throws(StateFormatError) in try inner.readVarint() }
            guard elements <= UInt64(inner.end - inner.offset) else {
                throw .malformed(StateFormatError("element count \(elements) exceeds the data", at: countOffset))
            }
            let mark = writing ? beginNested(tag, count: Int(elements)) : nil
            for _ in 0..<Int(elements) {
                if tag == .dictionary {
                    let key = try Self.formatted { () throws(StateFormatError) in try inner.readStringRange() }
                    if writing { appendKey(UnsafeRawBufferPointer(rebasing: cursor.base[key])) }
                }
                try appendPluginValue(&inner, depth: depth + 1, writing: writing, hasHandles: &hasHandles, resolve: resolve)
            }
            guard inner.isAtEnd else {
                throw .malformed(StateFormatError("trailing bytes after the last element", at: inner.offset))
            }
            if let mark { endNested(mark) }
            return
        }
        // Scalars, strings, bytes and references: checked, copied as they are.
        if writing { appendRaw(UnsafeRawBufferPointer(rebasing: cursor.base[start..<cursor.offset])) }
    }

    /// Runs a read, turning its format error into a plugin-entries error.
    @inline(__always)
    private static func formatted<T>(_ body: () throws(StateFormatError) -> T) throws(PluginEntriesError) -> T {
        do {
            return try body()
        } catch {
            throw .malformed(error)
        }
    }
}
