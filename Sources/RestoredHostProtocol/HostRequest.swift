import RestoredEngine
public import RestoredState

/// A request from restored to a helper.
public enum HostRequest: Sendable {
    /// Load the plugin; answered by `ready` or `refused`. Its instance is
    /// created (`create`) at the first walk, so a crash there is that walk's.
    case start(HostStart)
    /// Run the preservation walk; answered by `saved` or `unchanged`.
    case save(HostSaveRequest)
    /// Run the restoration walk over this archive (the archive file format)
    /// for `reason`, within `timeLeft` (nil: no deadline); answered by `restored`.
    case restore(archive: [UInt8], reason: RestoreReason, options: [String: String], timeLeft: Duration? = nil)

    /// The frame kind, the message body and its blob (an archive to restore).
    public var frame: (kind: HostFrameKind, body: [UInt8], blob: [UInt8]) {
        switch self {
        case .start(let start):
            let entries: [StoredEntry] = [
                StoredEntry(key: "version", value: .uint64(UInt64(HostProtocol.version))),
                StoredEntry(key: "restoredVersion", value: .string(start.restoredVersion)),
                StoredEntry(key: "plugin", value: .string(start.pluginFile)),
                StoredEntry(key: "logLevel", value: .string(start.logLevel)),
                StoredEntry(key: "objectByteBudget", value: .uint64(UInt64(start.configuration.objectByteBudget))),
                StoredEntry(key: "appByteBudget", value: .uint64(UInt64(start.configuration.appByteBudget))),
                StoredEntry(key: "systemVersion", value: .string(start.configuration.systemVersion)),
                StoredEntry(key: "memoryLimit", value: .uint64(start.memoryLimit)),
            ]
            return (.start, entries.messageBody, [])
        case .save(let save):
            var entries = [
                StoredEntry(key: "options", value: .strings(save.options)),
                StoredEntry(key: "occasion", value: .uint64(UInt64(save.occasion.rawValue))),
            ]
            if let token = save.unlessSameAs { entries.append(StoredEntry(key: "unlessSameAs", value: .uint64(token))) }
            if let timeLeft = save.timeLeft { entries.append(Self.timeLeftEntry(timeLeft)) }
            return (.save, entries.messageBody, [])
        case .restore(let archive, let reason, let options, let timeLeft):
            var entries = [
                StoredEntry(key: "options", value: .strings(options)),
                StoredEntry(key: "reason", value: .uint64(UInt64(reason.rawValue))),
            ]
            if let timeLeft { entries.append(Self.timeLeftEntry(timeLeft)) }
            return (.restore, entries.messageBody, archive)
        }
    }

    /// Reads a request frame (in the helper).
    public init(_ frame: FrameChannel.Frame) throws(HostProtocolError) {
        let fields = try MessageFields(decoding: frame.body)
        switch HostFrameKind(rawValue: frame.kind) {
        case .start:
            let version = try fields.uint64("version")
            guard version == UInt64(HostProtocol.version) else {
                throw .versionMismatch(protocolVersion: version, restoredVersion: try? fields.string("restoredVersion"))
            }
            let configuration = EngineConfiguration(
                objectByteBudget: try fields.count("objectByteBudget"),
                appByteBudget: try fields.count("appByteBudget"),
                systemVersion: try fields.string("systemVersion")
            )
            self = .start(HostStart(
                pluginFile: try fields.string("plugin"), logLevel: try fields.string("logLevel"), configuration: configuration, memoryLimit: try fields.uint64("memoryLimit"),
                restoredVersion: try fields.string("restoredVersion")
            ))
        case .save:
            let occasion = try fields.uint64("occasion")
            guard let known = UInt32(exactly: occasion).flatMap(SaveOccasion.init(rawValue:)) else {
                throw .malformed("a save for the unknown occasion \(occasion)")
            }
            self = .save(HostSaveRequest(
                occasion: known, unlessSameAs: fields["unlessSameAs"] == nil ? nil : try fields.uint64("unlessSameAs"), options: try fields.strings("options"),
                timeLeft: try Self.timeLeft(in: fields)
            ))
        case .restore:
            let reason = try fields.uint64("reason")
            guard let known = UInt32(exactly: reason).flatMap(RestoreReason.init(rawValue:)) else {
                throw .malformed("a restore for the unknown reason \(reason)")
            }
            self = .restore(archive: Array(fields.blob), reason: known, options: try fields.strings("options"), timeLeft: try Self.timeLeft(in: fields))
        default:
            throw .malformed("a request of unknown kind \(frame.kind)")
        }
    }

    /// The entry of a walk's time left, in milliseconds.
    private static func timeLeftEntry(_ timeLeft: Duration) -> StoredEntry {
        // A day at most: no walk waits longer, and no product overflows.
        let kept = min(max(timeLeft, .zero), .seconds(86_400))
        let milliseconds = kept.components.seconds * 1000 + kept.components.attoseconds / 1_000_000_000_000_000
        return StoredEntry(key: "timeLeftMilliseconds", value: .uint64(UInt64(milliseconds)))
    }

    /// The walk's time left a request carries; nil when it has none.
    private static func timeLeft(in fields: MessageFields) throws(HostProtocolError) -> Duration? {
        guard fields["timeLeftMilliseconds"] != nil else { return nil }
        let milliseconds = try fields.uint64("timeLeftMilliseconds")
        return .milliseconds(Int64(clamping: milliseconds))
    }
}
