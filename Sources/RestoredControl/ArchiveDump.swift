public import Foundation
import RestoredArchive
public import RestoredState

/// The whole decoded archive, as `restored-ctl dump` prints it.
///
/// JSON shape: `app`, `appVersion`, `systemVersion`, `plugin`, `time` (ISO
/// 8601), `generation`, `generationFile`, `size`, `ignoreSnapshot`,
/// `restoreAttempts`, `restoreAttemptRecordDamaged` (the record of
/// attempts cannot be read, and counts one), `appState` (entries),
/// `objects` (each `path`,
/// `className`, `restorationClass` or null, `kind` (`child`, `presented`,
/// `manual`), `state` (entries)), `snapshot` (null, or `mediaType`, `size`,
/// `data` in base64). An entry is `key`, `type` and `value`; a value of an
/// array is `type` and `value`. Values: `bool`, `int64`, `uint64`, `double`
/// (non-finite ones as the strings `inf`, `-inf`, `nan`) as JSON; `string`;
/// `bytes` as base64; `date` as ISO 8601; `array` as a list of typed
/// values; `dictionary` as a list of entries; `reference` as the object's
/// path. State that cannot be decoded is one entry with an empty key, type
/// `unreadable` and the reason as its value.
public struct ArchiveDump: Encodable, Sendable {
    /// A typed value.
    public struct Value: Encodable, Sendable {
        /// The value.
        public let value: StoredValue

        enum CodingKeys: String, CodingKey { case type, value }

        /// Encodes `type` and `value`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(value.kindName, forKey: .type)
            try Self.encodeValue(value, in: &container)
        }

        static func encodeValue(_ value: StoredValue, in container: inout KeyedEncodingContainer<CodingKeys>) throws {
            switch value {
            case .bool(let flag): try container.encode(flag, forKey: .value)
            case .int64(let number): try container.encode(number, forKey: .value)
            case .uint64(let number): try container.encode(number, forKey: .value)
            case .double(let number): try container.encode(number, forKey: .value)
            case .string(let text): try container.encode(text, forKey: .value)
            case .bytes(let bytes): try container.encode(Data(bytes).base64EncodedString(), forKey: .value)
            case .date(let seconds): try container.encode(Date(timeIntervalSince1970: seconds), forKey: .value)
            case .array(let items): try container.encode(items.map(Value.init), forKey: .value)
            case .dictionary(let entries): try container.encode(entries.map { Entry(key: $0.key, value: $0.value) }, forKey: .value)
            case .reference(let path): try container.encode(path.description, forKey: .value)
            }
        }
    }

    /// A keyed value.
    public struct Entry: Encodable, Sendable {
        /// The key.
        public let key: String
        /// The value, or nil when the container could not be decoded.
        public let value: StoredValue?
        /// Why the container could not be decoded.
        var unreadable: String? = nil

        enum CodingKeys: String, CodingKey { case key, type, value }

        /// Encodes `key`, `type` and `value`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(key, forKey: .key)
            guard let value else {
                try container.encode("unreadable", forKey: .type)
                try container.encode(unreadable ?? "", forKey: .value)
                return
            }
            try container.encode(value.kindName, forKey: .type)
            var valueContainer = encoder.container(keyedBy: Value.CodingKeys.self)
            try Value.encodeValue(value, in: &valueContainer)
        }

        /// The entries of a container, or one `unreadable` entry naming the error.
        static func entries(of state: [UInt8]) -> [Entry] {
            guard !state.isEmpty else { return [] }
            do {
                return try StateContainerReader.decodeEntries(state).map { Entry(key: $0.key, value: $0.value) }
            } catch {
                return [Entry(key: "", value: nil, unreadable: "\(error)")]
            }
        }
    }

    /// One object.
    public struct Object: Encodable, Sendable {
        /// Its restoration path.
        public let path: String
        /// Its class name.
        public let className: String
        /// Its restoration class, if any.
        @NullEncoded public var restorationClass: String?
        /// `child`, `presented` or `manual`.
        public let kind: String
        /// Its state.
        public let state: [Entry]
    }

    /// The snapshot.
    public struct SnapshotDump: Encodable, Hashable, Sendable {
        /// Its media type.
        public let mediaType: String
        /// Its size in bytes.
        public let size: Int
        /// Its bytes, base64.
        public let data: String
    }

    /// The app id.
    public let app: String
    /// The app's version when saved.
    public let appVersion: String
    /// The system's version when saved.
    public let systemVersion: String
    /// The plugin file that wrote it.
    public let plugin: String
    /// When it was written.
    @NullEncoded public var time: Date?
    /// Its generation.
    public let generation: UInt64
    /// The file it was read from.
    public let generationFile: String
    /// The file's size in bytes.
    public let size: Int
    /// The ignore-snapshot flag.
    public let ignoreSnapshot: Bool
    /// Restores started and not finished.
    public let restoreAttempts: UInt32
    /// Whether the app's record of restore attempts cannot be read.
    public let restoreAttemptRecordDamaged: Bool
    /// The app-wide state.
    public let appState: [Entry]
    /// The objects, parents first.
    public let objects: [Object]
    /// The snapshot, if any.
    @NullEncoded public var snapshot: SnapshotDump?
    /// Why the current file was passed over, if it was.
    public let problems: [String]

    init(_ reading: ArchiveReading) {
        let archive = reading.archive
        app = archive.appID.rawValue
        appVersion = archive.appVersion
        systemVersion = archive.systemVersion
        plugin = archive.plugin
        time = Timestamps.date(nanoseconds: archive.timestamp)
        generation = archive.generation
        generationFile = reading.source.fileName
        size = reading.byteCount
        ignoreSnapshot = archive.ignoresSnapshot
        restoreAttempts = reading.restoreAttempts
        restoreAttemptRecordDamaged = reading.restoreAttemptRecordIsDamaged
        appState = Entry.entries(of: archive.appState)
        objects = archive.objects.map { object in
            Object(
                path: object.path.description, className: object.className, restorationClass: object.restorationClass,
                kind: object.kind.name,
                state: Entry.entries(of: object.state)
            )
        }
        problems = reading.problems.map(\.description)
        snapshot = archive.snapshot.map { SnapshotDump(mediaType: $0.mediaType, size: $0.data.count, data: Data($0.data).base64EncodedString()) }
    }
}
