import RestoredState

/// What one ``StateCoder`` holds during its callback: the entries encoded
/// so far, or the container borrowed from the host, indexed once. Buffers
/// are reused from callback to callback, keeping their capacity.
final class CoderBuffer {
    var writer = StateContainerWriter(reservingCapacity: 512)
    var reader: StateContainerReader?
    var isBorrowed = false

    /// The value of `key` in the borrowed container, or nil.
    func value(forKey key: String) -> StateValueView? {
        reader?.value(forKey: key)
    }

    /// Empties the buffer for the next callback.
    func reset() {
        writer.removeAll()
        reader = nil
        isBorrowed = false
    }
}
