/// A preview of an app shown before it is restored (R12): an image or text,
/// with its media type.
public struct Snapshot: Hashable, Sendable {
    /// The media type of `data`, like `image/png` or `text/plain`.
    public var mediaType: String
    /// The snapshot's bytes.
    public var data: [UInt8]

    /// Creates a snapshot.
    public init(mediaType: String, data: [UInt8]) {
        self.mediaType = mediaType
        self.data = data
    }
}
