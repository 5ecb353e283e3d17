public import RestoredArchive
public import RestoredEngine
import RestoredState

/// A reply from a helper to restored.
public enum HostReply: Sendable {
    /// The plugin is loaded by a helper of restored `restoredVersion`.
    case ready(PluginIdentity, restoredVersion: String = RestoredVersion.string)
    /// The plugin was refused.
    case refused(PluginRefusal.Reason)
    /// A save's result.
    case saved(HostSaveResult)
    /// The state equals the archive of the token the request named.
    case unchanged
    /// A restore's report; its outcome is `restored`, `declined` or `failed`.
    case restored(RestorationReport)
    /// The helper is dying of `signal` while running `callback`.
    case crashed(signal: Int32, callback: String?)

    /// The frame kind, the message body and its blob (the archive of a
    /// save), in the helper.
    public var frame: (kind: HostFrameKind, body: [UInt8], blob: [UInt8]) {
        switch self {
        case .ready(let identity, let restoredVersion):
            let entries: [StoredEntry] = [
                StoredEntry(key: "version", value: .uint64(UInt64(HostProtocol.version))),
                StoredEntry(key: "restoredVersion", value: .string(restoredVersion)),
                StoredEntry(key: "app", value: .string(identity.appID.rawValue)),
                StoredEntry(key: "appVersion", value: .string(identity.appVersion)),
                StoredEntry(key: "displayName", value: .string(identity.displayName)),
                StoredEntry(key: "abiVersion", value: .uint64(UInt64(identity.abiVersion))),
                StoredEntry(key: "traits", value: .uint64(UInt64(identity.traits.rawValue))),
            ]
            return (.ready, entries.messageBody, [])
        case .refused(let reason):
            return (.refused, Self.entries(of: reason).messageBody, [])
        case .saved(let result):
            var entries: [StoredEntry] = [
                StoredEntry(key: "token", value: .uint64(result.token)),
                StoredEntry(key: "hasArchive", value: .bool(result.archive != nil)),
            ]
            entries += Self.entries(of: result.report)
            return (.saved, entries.messageBody, result.archive ?? [])
        case .unchanged:
            return (.unchanged, [StoredEntry]().messageBody, [])
        case .restored(let report):
            return (.restored, Self.entries(of: report).messageBody, [])
        case .crashed(let signal, let callback):
            // The layout the crash reporter writes from its signal handler.
            return (.crashed, [UInt8(truncatingIfNeeded: signal)] + Array((callback ?? "").utf8), [])
        }
    }

    /// Reads a reply frame of `appID`'s helper (in restored); anything that
    /// is not exactly a reply of this protocol throws.
    public init(_ frame: FrameChannel.Frame, appID: AppID) throws(HostProtocolError) {
        guard let kind = HostFrameKind(rawValue: frame.kind), kind.rawValue >= 0x80 else {
            throw .malformed("a reply of unknown kind \(frame.kind)")
        }
        if kind == .crashed {
            guard let signal = frame.body.first else { throw .malformed("an empty crash report") }
            let name = frame.body.dropFirst()
            guard let callback = String(validating: name, as: UTF8.self) else { throw .malformed("a crash report with an invalid callback name") }
            self = .crashed(signal: Int32(signal), callback: callback.isEmpty ? nil : callback)
            return
        }
        let fields = try MessageFields(decoding: frame.body)
        switch kind {
        case .ready:
            let version = try fields.uint64("version")
            guard version == UInt64(HostProtocol.version) else {
                throw .versionMismatch(protocolVersion: version, restoredVersion: try? fields.string("restoredVersion"))
            }
            let appID: AppID
            do {
                appID = try AppID(try fields.string("app"))
            } catch {
                throw .malformed("an invalid app id (\(error))")
            }
            let abi = try fields.uint64("abiVersion")
            guard abi <= UInt64(UInt32.max) else { throw .malformed("abiVersion is out of range") }
            let traits = try fields.uint64("traits")
            guard traits <= UInt64(UInt32.max) else { throw .malformed("traits are out of range") }
            self = .ready(PluginIdentity(
                appID: appID, appVersion: try fields.string("appVersion"), displayName: try fields.string("displayName"), abiVersion: UInt32(abi),
                traits: PluginTraits(rawValue: UInt32(traits))
            ), restoredVersion: try fields.string("restoredVersion"))
        case .refused:
            self = .refused(try Self.reason(from: fields))
        case .saved:
            var report = try Self.preservationReport(from: fields, appID: appID)
            let archive = try fields.bool("hasArchive") ? Array(fields.blob) : nil
            if archive != nil { report.outcome = .saved(generation: 0) }
            self = .saved(HostSaveResult(token: try fields.uint64("token"), archive: archive, report: report))
        case .unchanged:
            self = .unchanged
        case .restored:
            self = .restored(try Self.restorationReport(from: fields, appID: appID))
        default:
            throw .malformed("a reply of kind \(frame.kind) where none is expected")
        }
    }

    // MARK: Refusals

    private static func entries(of reason: PluginRefusal.Reason) -> [StoredEntry] {
        var entries = [StoredEntry(key: "code", value: .string(PluginRefusal(file: "", reason: reason).code))]
        func add(_ key: String, _ value: StoredValue) { entries.append(StoredEntry(key: key, value: value)) }
        switch reason {
        case .loadFailed(let text), .missingCallback(let text), .startFailed(let text), .hostVersionMismatch(let text):
            add("detail", .string(text))
        case .wrongABIVersion(let found, let expected):
            add("found", .uint64(UInt64(found)))
            add("expected", .uint64(UInt64(expected)))
        case .truncatedDescriptor(let size):
            add("size", .uint64(UInt64(size)))
        case .invalidAppID(let appID, let text):
            add("app", .string(appID))
            add("detail", .string(text))
        case .wrongRuntime(let found, let expected):
            add("record", .string(found))
            add("hostRecord", .string(expected))
        case .missingSymbol, .noDescriptor, .duplicateAppID, .insecurePermissions:
            break
        }
        return entries
    }

    private static func reason(from fields: MessageFields) throws(HostProtocolError) -> PluginRefusal.Reason {
        func number(_ key: String) throws(HostProtocolError) -> UInt32 {
            let value = try fields.uint64(key)
            guard value <= UInt64(UInt32.max) else { throw .malformed("\(key) is out of range") }
            return UInt32(value)
        }
        switch try fields.string("code") {
        case "load-failed": return .loadFailed(try fields.string("detail"))
        case "missing-symbol": return .missingSymbol
        case "no-descriptor": return .noDescriptor
        case "wrong-abi-version": return .wrongABIVersion(found: try number("found"), expected: try number("expected"))
        case "truncated-descriptor": return .truncatedDescriptor(size: try number("size"))
        case "missing-callback": return .missingCallback(try fields.string("detail"))
        case "invalid-app-id": return .invalidAppID(try fields.string("app"), reason: try fields.string("detail"))
        case "start-failed": return .startFailed(try fields.string("detail"))
        case "host-version-mismatch": return .hostVersionMismatch(try fields.string("detail"))
        case "wrong-runtime": return .wrongRuntime(found: try fields.string("record"), expected: try fields.string("hostRecord"))
        case let code: throw .malformed("a refusal with the unknown code \"\(code)\"")
        }
    }

    // MARK: Reports

    private static func issuesEntry(_ issues: [EngineIssue]) -> StoredEntry {
        StoredEntry(key: "issues", value: .array(issues.map { issue in
            var entries = [StoredEntry(key: "message", value: .string(issue.message))]
            if let path = issue.path { entries.append(StoredEntry(key: "path", value: .reference(path))) }
            if let rule = issue.rule { entries.append(StoredEntry(key: "rule", value: .string(rule))) }
            return .dictionary(entries)
        }))
    }

    private static func issues(from fields: MessageFields, appID: AppID) throws(HostProtocolError) -> [EngineIssue] {
        var issues: [EngineIssue] = []
        for record in try fields.records("issues") {
            var path: ObjectPath?
            if let value = record["path"] {
                guard case .reference(let reference) = value else { throw .malformed("an issue's path is not a reference") }
                path = reference
            }
            issues.append(EngineIssue(appID: appID, path: path, rule: try record.optionalString("rule"), message: try record.string("message")))
        }
        return issues
    }

    private static func omissionsEntry(_ key: String, _ omissions: [OmittedObject]) -> StoredEntry {
        StoredEntry(key: key, value: .array(omissions.map { omission in
            .dictionary([StoredEntry(key: "path", value: .reference(omission.path)), StoredEntry(key: "reason", value: .string(omission.reason))])
        }))
    }

    private static func omissions(_ key: String, from fields: MessageFields) throws(HostProtocolError) -> [OmittedObject] {
        var omissions: [OmittedObject] = []
        for record in try fields.records(key) {
            guard case .reference(let path)? = record["path"] else { throw .malformed("a left-out object of \(key) without a path") }
            omissions.append(OmittedObject(path: path, reason: try record.string("reason")))
        }
        return omissions
    }

    private static func entries(of report: PreservationReport) -> [StoredEntry] {
        var entries = [StoredEntry(key: "result", value: .string(report.word.rawValue))]
        if case .failed(let reason) = report.outcome { entries.append(StoredEntry(key: "reason", value: .string(reason))) }
        if case .kept(let reason) = report.outcome { entries.append(StoredEntry(key: "reason", value: .string(reason))) }
        entries += [
            // Counts, not the saved paths: restored logs how many, and a
            // large app would send thousands of paths at every save.
            StoredEntry(key: "saved", value: .uint64(UInt64(report.savedObjectCount))),
            omissionsEntry("dropped", report.droppedObjects),
            StoredEntry(key: "skipped", value: .uint64(UInt64(report.skippedWithoutIdentifier))),
            StoredEntry(key: "snapshot", value: .bool(report.hasSnapshot)),
            issuesEntry(report.issues),
        ]
        return entries
    }

    private static func preservationReport(from fields: MessageFields, appID: AppID) throws(HostProtocolError) -> PreservationReport {
        let outcome: PreservationReport.Outcome
        let result = try fields.string("result")
        switch SaveOutcome(rawValue: result) {
        case .saved, .partial: outcome = .saved(generation: 0)
        case .declined: outcome = .declined
        case .failed: outcome = .failed(try fields.string("reason"))
        // The plugin's "keep what you have" (SaveDecision.keepLastArchive).
        case .kept: outcome = .kept(try fields.string("reason"))
        case nil: throw .malformed("a save result \"\(result)\"")
        }
        var report = PreservationReport(appID: appID, outcome: outcome)
        report.savedObjectCount = try fields.count("saved")
        report.droppedObjects = try omissions("dropped", from: fields)
        report.skippedWithoutIdentifier = try fields.count("skipped")
        report.hasSnapshot = try fields.bool("snapshot")
        report.issues = try issues(from: fields, appID: appID)
        return report
    }

    private static func entries(of report: RestorationReport) -> [StoredEntry] {
        // A helper's walk ends restored, declined or failed; the store-side
        // outcomes (no archive, skipped ...) are restored's own.
        var entries = [StoredEntry(key: "result", value: .string(report.outcome.word.rawValue))]
        if case .failed(let reason) = report.outcome { entries.append(StoredEntry(key: "reason", value: .string(reason))) }
        let snapshot = switch report.snapshot {
        case .none: "none"
        case .presented: "presented"
        case .ignored: "ignored"
        }
        entries += [
            StoredEntry(key: "restored", value: .uint64(UInt64(report.restoredObjectCount))),
            omissionsEntry("notRestored", report.notRestored),
            StoredEntry(key: "classMismatch", value: .paths(report.classMismatchPaths)),
            StoredEntry(key: "snapshot", value: .string(snapshot)),
            issuesEntry(report.issues),
        ]
        return entries
    }

    private static func restorationReport(from fields: MessageFields, appID: AppID) throws(HostProtocolError) -> RestorationReport {
        let outcome: RestorationReport.Outcome
        let result = try fields.string("result")
        switch RestoreOutcome(rawValue: result) {
        case .restored: outcome = .restored
        case .declined: outcome = .declined
        case .failed: outcome = .failed(try fields.string("reason"))
        default: throw .malformed("a restore result \"\(result)\"")
        }
        var report = RestorationReport(appID: appID, outcome: outcome)
        report.restoredObjectCount = try fields.count("restored")
        report.notRestored = try omissions("notRestored", from: fields)
        report.classMismatchPaths = try fields.paths("classMismatch")
        switch try fields.string("snapshot") {
        case "none": report.snapshot = .none
        case "presented": report.snapshot = .presented
        case "ignored": report.snapshot = .ignored
        case let snapshot: throw .malformed("a snapshot outcome \"\(snapshot)\"")
        }
        report.issues = try issues(from: fields, appID: appID)
        return report
    }
}
