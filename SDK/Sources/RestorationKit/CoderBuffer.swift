import RestoredState

/// What one ``StateCoder`` holds during its callback: the entries encoded
/// so far, or the container borrowed from the host, indexed once.
final class CoderBuffer {
    var writer = StateContainerWriter(reservingCapacity: 256)
    var reader: StateContainerReader?
    var isBorrowed = false
}
