import Foundation
import RestoredArchive
import RestoredState

/// One synthetic object as a Codable record: what Foundation's coders get.
struct SyntheticRecord: Codable, Equatable {
    var path: String
    var className: String
    var title: String
    var number: Int
    var selected: Bool
    var scroll: Double
    var zoom: Double
    var tags: [String]
    var modified: Date
    var body: String

    /// The records of every object of an archive written by the synthetic plugin.
    static func records(from archive: Archive) throws -> [SyntheticRecord] {
        try archive.objects.map { object in
            var values: [String: StoredValue] = [:]
            for entry in try StateContainerReader.decodeEntries(object.state) { values[entry.key] = entry.value }
            guard case .string(let title) = values["title"], case .int64(let number) = values["number"],
                  case .bool(let selected) = values["selected"], case .double(let scroll) = values["scroll"],
                  case .double(let zoom) = values["zoom"], case .array(let tags) = values["tags"],
                  case .date(let modified) = values["modified"], case .string(let body) = values["body"]
            else { throw BenchmarkFailure("unexpected state at \(object.path)") }
            return SyntheticRecord(
                path: object.path.description, className: object.className, title: title, number: Int(number),
                selected: selected, scroll: scroll, zoom: zoom,
                tags: tags.compactMap { if case .string(let tag) = $0 { tag } else { nil } },
                modified: Date(timeIntervalSince1970: modified), body: body
            )
        }
    }
}

/// The same record as an NSCoding object, for NSKeyedArchiver.
final class SyntheticRecordObject: NSObject, NSCoding {
    let record: SyntheticRecord

    init(_ record: SyntheticRecord) {
        self.record = record
    }

    func encode(with coder: NSCoder) {
        coder.encode(record.path as NSString, forKey: "path")
        coder.encode(record.className as NSString, forKey: "className")
        coder.encode(record.title as NSString, forKey: "title")
        coder.encode(record.number, forKey: "number")
        coder.encode(record.selected, forKey: "selected")
        coder.encode(record.scroll, forKey: "scroll")
        coder.encode(record.zoom, forKey: "zoom")
        coder.encode(record.tags.map { $0 as NSString } as NSArray, forKey: "tags")
        coder.encode(record.modified as NSDate, forKey: "modified")
        coder.encode(record.body as NSString, forKey: "body")
    }

    init?(coder: NSCoder) {
        guard let path = coder.decodeObject(forKey: "path") as? String,
              let className = coder.decodeObject(forKey: "className") as? String,
              let title = coder.decodeObject(forKey: "title") as? String,
              let tags = coder.decodeObject(forKey: "tags") as? [String],
              let modified = coder.decodeObject(forKey: "modified") as? Date,
              let body = coder.decodeObject(forKey: "body") as? String
        else { return nil }
        record = SyntheticRecord(
            path: path, className: className, title: title, number: coder.decodeInteger(forKey: "number"),
            selected: coder.decodeBool(forKey: "selected"), scroll: coder.decodeDouble(forKey: "scroll"),
            zoom: coder.decodeDouble(forKey: "zoom"), tags: tags, modified: modified, body: body
        )
    }
}
