/// Malformed container bytes (R16: hostile bytes give this error, never a crash).
public struct StateFormatError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, for people.
    public var reason: String
    /// The byte offset in the container where it was found.
    public var offset: Int

    /// Creates an error.
    public init(_ reason: String, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    /// One line: what is wrong and where.
    public var description: String {
        "malformed object state at byte \(offset): \(reason)"
    }
}

extension StateFormatError: ByteCursorFailure {
    /// The data ends before `length` more bytes.
    public static func truncated(at offset: Int, length: UInt64) -> StateFormatError {
        length <= 8
            ? StateFormatError("unexpected end of data", at: offset)
            : StateFormatError("length \(length) goes past the end", at: offset)
    }

    /// A varint longer than 64 bits.
    public static func varintOverflow(at offset: Int) -> StateFormatError {
        StateFormatError("varint overflows 64 bits", at: offset)
    }

    /// A string that is not UTF-8.
    public static func invalidUTF8(at offset: Int) -> StateFormatError {
        StateFormatError("invalid UTF-8 in string", at: offset)
    }
}
