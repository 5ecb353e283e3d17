/// A freedesktop application id, like `org.example.Notes`: the name under
/// which an app's archive is stored.
///
/// The rules are those of the freedesktop desktop-entry specification: 1 to
/// 255 bytes of ASCII, at least two elements separated by `.`, no empty
/// element, each element made of `A-Z a-z 0-9 _ -` and not starting with a
/// digit. An id is checked before any file is touched, so `..`, `/`, empty
/// and non-ASCII names can never reach a path.
public struct AppID: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// The longest valid id, in bytes.
    public static let maximumLength = 255

    /// The id as written, like `org.example.Notes`.
    public let rawValue: String

    /// Validates `string` as an app id.
    public init(_ string: String) throws(AppIDError) {
        if let reason = Self.problem(in: string) {
            throw AppIDError(string: string, reason: reason)
        }
        rawValue = string
    }

    /// The id as written.
    public var description: String { rawValue }

    /// Byte-wise order of the ids.
    public static func < (lhs: AppID, rhs: AppID) -> Bool {
        lhs.rawValue.utf8.lexicographicallyPrecedes(rhs.rawValue.utf8)
    }

    /// Decodes an id from a single string, validating it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            try self.init(string)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Encodes the id as a single string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The first rule `string` breaks, or nil if it is a valid id.
    private static func problem(in string: String) -> AppIDError.Reason? {
        let bytes = string.utf8
        if bytes.isEmpty { return .empty }
        if bytes.count > maximumLength { return .tooLong(bytes.count) }
        if bytes.contains(where: { $0 >= 0x80 }) { return .notASCII }
        for byte in bytes where !isElementByte(byte) && byte != UInt8(ascii: ".") {
            return .invalidCharacter(Character(Unicode.Scalar(byte)))
        }
        let elements = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if elements.contains(where: \.isEmpty) { return .emptyElement }
        if elements.count < 2 { return .tooFewElements }
        for element in elements {
            if let first = element.first, first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9") {
                return .elementStartsWithDigit(String(decoding: element, as: UTF8.self))
            }
        }
        return nil
    }

    private static func isElementByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}
