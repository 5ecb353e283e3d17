import Foundation

/// The JSON every `--json` prints: sorted keys, indented, dates in ISO 8601
/// (UTC, with milliseconds), non-finite doubles as `inf`, `-inf`, `nan`;
/// absent values as `null`; one value per run.
public enum JSONOutput {
    /// `value` as JSON text with a final newline.
    public static func text(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            var container = encoder.singleValueContainer()
            try container.encode(formatter.string(from: date))
        }
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}
