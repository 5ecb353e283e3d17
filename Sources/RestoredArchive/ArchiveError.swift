/// Why bytes could not be decoded as an ``Archive``.
///
/// ``ArchiveCodec/decode(_:)`` checks, in this order: signature, format
/// version, header, length, checksum, then the payload's structure. Offsets
/// are byte offsets from the start of the file.
public enum ArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Too short to be an archive, or without the archive signature.
    case notAnArchive
    /// A format version this build does not read (a newer restored wrote it).
    case unsupportedVersion(UInt16)
    /// A header field with a value that its format version does not allow.
    case invalidHeader(field: String, value: UInt64)
    /// The file's size is not the one its header announces: truncated or with
    /// trailing bytes. `expected` is nil when even the header is incomplete.
    case lengthMismatch(expected: UInt64?, actual: Int)
    /// The stored CRC-32C does not match the bytes.
    case checksumMismatch(stored: UInt32, computed: UInt32)
    /// A variable-length integer longer than 64 bits.
    case varintOverflow(offset: Int)
    /// A length or count that reaches past the end of the payload.
    case lengthBeyondEnd(offset: Int, length: UInt64)
    /// A string that is not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// The archive's app id is not a valid app id.
    case invalidAppID(AppIDError)
    /// A position component that does not fit a non-negative 64-bit integer.
    case invalidPosition(offset: Int)
    /// An object kind this format does not define.
    case unknownObjectKind(UInt8, offset: Int)
    /// A presence byte that is neither 0 nor 1.
    case invalidPresence(UInt8, offset: Int)
    /// Bytes left in the payload after the last field.
    case trailingPayloadBytes(count: Int)
    /// The partial flag is set, but the list of left-out objects is empty.
    case emptyOmissionList(offset: Int)
    /// The carry flag is set, but the list of carried objects is empty.
    case emptyCarryList(offset: Int)

    /// One line saying what is wrong with the bytes.
    public var description: String {
        switch self {
        case .notAnArchive:
            return "not a restored archive (the restored archive signature is missing)"
        case .unsupportedVersion(let version):
            return "archive format version \(version) is not supported (this restored reads versions \(ArchiveCodec.formatVersion) to \(ArchiveCodec.carryingFormatVersion)); a newer restored wrote it: update restored or discard the archive"
        case .invalidHeader(let field, let value):
            return "corrupt archive: header field \(field) has the invalid value \(value)"
        case .lengthMismatch(let expected?, let actual) where UInt64(actual) > expected:
            return "corrupt archive: \(UInt64(actual) - expected) unexpected bytes after its end (the file has \(actual) bytes, its header says \(expected))"
        case .lengthMismatch(let expected?, let actual):
            return "corrupt archive: truncated (the file has \(actual) bytes, its header says \(expected))"
        case .lengthMismatch(nil, let actual):
            return "corrupt archive: truncated inside its header (the file has \(actual) bytes)"
        case .checksumMismatch:
            return "corrupt archive: checksum mismatch"
        case .varintOverflow(let offset):
            return "corrupt archive: number too large at byte \(offset)"
        case .lengthBeyondEnd(let offset, let length):
            return "corrupt archive: length \(length) at byte \(offset) reaches past the end"
        case .invalidUTF8(let offset):
            return "corrupt archive: invalid UTF-8 in the string at byte \(offset)"
        case .invalidAppID(let error):
            return "corrupt archive: \(error)"
        case .invalidPosition(let offset):
            return "corrupt archive: invalid object position at byte \(offset)"
        case .unknownObjectKind(let kind, let offset):
            return "corrupt archive: unknown object kind \(kind) at byte \(offset)"
        case .invalidPresence(let value, let offset):
            return "corrupt archive: invalid presence byte \(value) at byte \(offset)"
        case .trailingPayloadBytes(let count):
            return "corrupt archive: \(count) unexpected bytes after the last field"
        case .emptyOmissionList(let offset):
            return "corrupt archive: marked partial, but lists no left-out object at byte \(offset)"
        case .emptyCarryList(let offset):
            return "corrupt archive: marked as carrying objects over, but lists none at byte \(offset)"
        }
    }
}
