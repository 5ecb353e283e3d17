import RestoredState

/// What one ``StateCoder`` holds during its callback: the entries encoded
/// so far, or the container borrowed from the host, indexed once. Buffers
/// are reused from callback to callback, keeping their capacity (the
/// writer's bytes and the reader's index alike).
final class CoderBuffer {
    var writer = StateContainerWriter(reservingCapacity: 512)
    /// The index of the borrowed container; empty until it is borrowed,
    /// and when the host lent nothing or something malformed.
    var reader = StateContainerReader()
    var isBorrowed = false

    /// The value of `key` in the borrowed container, or nil.
    func value(forKey key: String) -> StateValueView? {
        reader.value(forKey: key)
    }

    /// Empties the buffer for the next callback.
    func reset() {
        writer.removeAll()
        reader.clear()
        isBorrowed = false
    }
}
