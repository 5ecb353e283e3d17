/// Maps list positions to stable model identifiers and back (R11), like
/// UIKit's `UIDataSourceModelAssociation`.
///
/// Lists save their selected and visible items by model identifier, never by
/// index, so a list that was reordered or filtered selects the same items.
public protocol ModelAssociation {
    /// The stable identifier of the element at `index`, or nil.
    func modelIdentifier(forElementAt index: Int) -> String?

    /// The current index of the element with `identifier`, or nil when it no
    /// longer exists.
    func index(forElementWithModelIdentifier identifier: String) -> Int?
}

extension StateCoder {
    /// Encodes elements by their model identifiers (R11).
    public func encodeModelIdentifiers(forElementsAt indices: [Int], using association: some ModelAssociation, forKey key: String) throws {
        try encode(indices.compactMap { association.modelIdentifier(forElementAt: $0) }, forKey: key)
    }

    /// Decodes elements saved with ``encodeModelIdentifiers(forElementsAt:using:forKey:)``
    /// and returns their current indices; identifiers that no longer exist
    /// are skipped (R11).
    public func decodeElementIndices(forKey key: String, using association: some ModelAssociation) throws -> [Int] {
        guard let identifiers = try decode([String].self, forKey: key) else { return [] }
        return identifiers.compactMap { association.index(forElementWithModelIdentifier: $0) }
    }
}
