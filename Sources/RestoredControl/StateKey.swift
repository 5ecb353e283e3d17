import RestoredState

/// One key of a state container, as `show` lists it: its name, the kind of
/// its value and the value's size in bytes.
public struct StateKey: Codable, Hashable, Sendable {
    /// The key.
    public var key: String
    /// `bool`, `int64`, `uint64`, `double`, `string`, `bytes`, `date`,
    /// `array`, `dictionary` or `reference`.
    public var type: String
    /// The encoded value's size in bytes.
    public var size: Int

    /// The keys of a container's bytes; throws when the bytes are malformed.
    static func keys(of state: [UInt8]) throws -> [StateKey] {
        guard !state.isEmpty else { return [] }
        return try state.withUnsafeBytes { bytes in
            let reader = try StateContainerReader(bytes)
            return reader.entries.map { entry in
                StateKey(
                    key: String(decoding: reader.keyBytes(of: entry), as: UTF8.self),
                    type: entry.value.tag.kindName, size: entry.value.payload.count
                )
            }
        }
    }
}
