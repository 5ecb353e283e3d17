public import FoundationEssentials

/// A preview of the app (an image or text) shown before the app is back (R12).
public struct RestorationSnapshot: Hashable, Sendable {
    /// The media type: `image/png`, `text/plain; charset=utf-8` ...
    public var mediaType: String
    /// The encoded preview.
    public var data: Data

    /// Creates a snapshot.
    public init(mediaType: String, data: Data) {
        self.mediaType = mediaType
        self.data = data
    }

    /// A plain-text snapshot.
    public init(text: String) {
        self.init(mediaType: "text/plain; charset=utf-8", data: Data(text.utf8))
    }
}
