/// Literal matches, byte for byte in UTF-8, where Foundation would match
/// UTF-16 code units: what the plugins need of Foundation's string search,
/// without linking Foundation (libFoundation and ICU cost every plugin host
/// about a mebibyte). The standard library's searches match whole
/// characters instead, so a `/` or `://` that a combining mark follows
/// would not be found. A valid UTF-8 target never matches inside a
/// character's bytes, so the results are valid UTF-8.
extension StringProtocol {
    /// The text with every `target` replaced by `replacement`, left to
    /// right, without overlaps (Foundation's `replacingOccurrences(of:with:)`).
    public func replacingEvery(_ target: String, with replacement: String) -> String {
        let pattern = Array(target.utf8)
        guard let first = pattern.first else { return String(self) }
        let source = Array(utf8)
        var result: [UInt8] = []
        result.reserveCapacity(source.count)
        var index = 0
        while index < source.count {
            if source[index] == first, source.count - index >= pattern.count, source[index ..< index + pattern.count].elementsEqual(pattern) {
                result.append(contentsOf: replacement.utf8)
                index += pattern.count
            } else {
                result.append(source[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The text before the first `target`, or nil when there is none
    /// (Foundation's `range(of:)`, then the prefix before it).
    public func prefix(beforeFirst target: String) -> String? {
        let pattern = Array(target.utf8)
        let source = Array(utf8)
        guard let first = pattern.first else { return "" }
        guard source.count >= pattern.count else { return nil }
        for start in 0 ... source.count - pattern.count where source[start] == first {
            if source[start ..< start + pattern.count].elementsEqual(pattern) {
                return String(decoding: source[..<start], as: UTF8.self)
            }
        }
        return nil
    }
}
