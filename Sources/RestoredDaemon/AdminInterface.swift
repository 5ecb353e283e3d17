import FoundationEssentials
import Glibc
import RestoredArchive
import RestoredDBus
import RestoredEngine

/// `org.restored1.Manager`: what `restored-ctl` and `busctl` see and steer.
///
/// Every method refuses callers that run as another user, even on the
/// session bus. Errors are named `org.restored1.Error.*`: `InvalidAppId`,
/// `UnknownApp`, `NoArchive`, `Busy`, `Failed`. Times are microseconds since
/// 1970-01-01 UTC (0 for never). The shapes are documented in
/// `docs/admin-api.md` ("The admin D-Bus API"); keys are only ever added.
struct AdminInterface: Sendable {
    static let errorPrefix = "org.restored1.Error."

    let control: DaemonControl
    let connection: DBusConnection

    var interface: DBusInterface {
        let (control, connection) = (self.control, self.connection)
        return DBusInterface(Daemon.interface, methods: [
            .init("Status", outputs: [.init("status", "a{sv}")]) { call in
                try await Self.requireOwnUser(call)
                return [.properties(Self.fields(of: await control.status()))]
            },
            .init("ListApps", outputs: [.init("apps", "aa{sv}")]) { call in
                try await Self.requireOwnUser(call)
                return [.array(elementSignature: "a{sv}", control.apps().map { .properties(Self.fields(of: $0)) })]
            },
            .init("ListPlugins", outputs: [.init("plugins", "a(ssus)")]) { call in
                try await Self.requireOwnUser(call)
                return [.array(elementSignature: "(ssus)", control.plugins().map(Self.row))]
            },
            .init("Save", inputs: [.init("apps", "as")], outputs: [.init("saved", "u")]) { call in
                try await Self.requireOwnUser(call)
                let apps = try Self.appIDs(try call.strings(at: 0))
                return [.uint32(UInt32(try await Self.answering { () throws(AdminError) in try await control.save(apps) }))]
            },
            .init("Restore", inputs: [.init("apps", "as"), .init("force", "b")], outputs: [.init("restored", "u")]) { call in
                try await Self.requireOwnUser(call)
                let apps = try Self.appIDs(try call.strings(at: 0))
                let mode: RestorationMode = try call.bool(at: 1) ? .forced : .automatic
                return [.uint32(UInt32(try await Self.answering { () throws(AdminError) in try await control.restore(apps, mode: mode) }))]
            },
            .init("RestoreLastComplete", inputs: [.init("app", "s")], outputs: [.init("outcome", "s")]) { call in
                try await Self.requireOwnUser(call)
                let app = try Self.appID(try call.string(at: 0))
                let report = try await Self.answering { () throws(AdminError) in try await control.restoreLastComplete(of: app) }
                return [.string(report.outcome.word.rawValue)]
            },
            .init("Discard", inputs: [.init("app", "s")]) { call in
                try await Self.requireOwnUser(call)
                let app = try Self.appID(try call.string(at: 0))
                try await Self.answering { () throws(AdminError) in try await control.discardArchive(of: app) }
                return []
            },
            .init("SetIgnoreSnapshot", inputs: [.init("app", "s"), .init("ignore", "b")]) { call in
                try await Self.requireOwnUser(call)
                let app = try Self.appID(try call.string(at: 0))
                let ignore = try call.bool(at: 1)
                try await Self.answering { () throws(AdminError) in try await control.setIgnoresSnapshot(ignore, for: app) }
                return []
            },
            .init("ReloadPlugins", outputs: [.init("added", "as"), .init("removed", "as"), .init("refused", "u")]) { call in
                try await Self.requireOwnUser(call)
                let result = await control.reloadPlugins()
                if !result.added.isEmpty || !result.removed.isEmpty {
                    try? connection.emitPropertiesChanged(
                        path: Daemon.objectPath, interface: Daemon.interface, changed: [("Apps", .strings(control.appIDs.map(\.rawValue)))]
                    )
                }
                return [.strings(result.added.map(\.rawValue)), .strings(result.removed.map(\.rawValue)), .uint32(UInt32(result.refused))]
            },
        ], properties: [
            .init("Version", signature: "s", get: { .string(RestoredVersion.string) }),
            .init("Apps", signature: "as", get: { .strings(control.appIDs.map(\.rawValue)) }),
            .init("LockHeld", signature: "b", get: { .boolean(await control.lockHeld()) }),
            .init("PluginDirectories", signature: "as", get: { .strings(control.registry.pluginDirectories.map(\.string)) }),
        ], signals: [
            .init("AppSaved", arguments: [.init("app", "s"), .init("generation", "t"), .init("trigger", "s")]),
            .init("AppRestored", arguments: [.init("app", "s"), .init("outcome", "s"), .init("trigger", "s")]),
            .init("AppFailed", arguments: [.init("app", "s"), .init("action", "s"), .init("reason", "s")]),
        ])
    }

    /// `Status`'s dictionary.
    static func fields(of status: DaemonControl.Status) -> [(String, DBusValue)] {
        let lastSave = status.lastSave
        return [
            ("State", .string(status.phase.rawValue)),
            ("Version", .string(RestoredVersion.string)),
            ("LockHeld", .boolean(status.lockHeld)),
            ("Logind", .boolean(status.logindReachable)),
            ("SessionManager", .boolean(status.sessionManagerRegistered)),
            ("Apps", .uint32(UInt32(status.appCount))),
            ("PluginsLoaded", .uint32(UInt32(status.appCount))),
            ("PluginsRefused", .uint32(UInt32(status.refusedPluginCount))),
            ("StateDirectory", .string(status.stateDirectory)),
            ("LastSave", .int64(lastSave.map { microseconds($0.time) } ?? 0)),
            ("LastSaveTrigger", .string(lastSave?.trigger.rawValue ?? "")),
            ("LastSaveSaved", .uint32(UInt32(lastSave?.saved ?? 0))),
            ("LastSaveFailed", .uint32(UInt32(lastSave?.failed ?? 0))),
            ("Desktop", .string(status.desktop.phase.rawValue)),
            ("DesktopName", .string(status.desktop.desktop?.description ?? "")),
            ("DesktopSince", .int64(status.desktop.desktop.map { microseconds($0.since) } ?? 0)),
            ("DesktopStartedBy", .string(status.desktop.desktop?.startedBy ?? "")),
            ("DesktopEndedBy", .string(status.desktop.lastEnd?.reason ?? "")),
            ("DesktopEnded", .int64(status.desktop.lastEnd.map { microseconds($0.time) } ?? 0)),
        ]
    }

    /// One `ListApps` row.
    static func fields(of app: DaemonControl.App) -> [(String, DBusValue)] {
        var row: [(String, DBusValue)] = [
            ("App", .string(app.appID.rawValue)),
            ("Plugin", .string(app.pluginFile ?? "")),
            ("PluginHostPid", .uint32(UInt32(app.pluginHostPID ?? 0))),
            ("Saving", .string(app.saving?.rawValue ?? "")),
            ("Restoring", .boolean(app.restoring)),
        ]
        switch app.archive {
        case .success(let summary):
            row += [
                ("HasArchive", .boolean(true)),
                ("Generation", .uint64(summary.seal.generation)),
                ("GenerationFile", .string(summary.source.fileName)),
                ("ArchiveTime", .int64(summary.seal.timestamp / 1000)),
                ("ArchiveSize", .uint64(UInt64(summary.byteCount))),
                ("IgnoreSnapshot", .boolean(summary.seal.ignoresSnapshot)),
                ("RestoreAttempts", .uint32(summary.restoreAttempts)),
                ("RestoreAttemptRecordDamaged", .boolean(summary.restoreAttemptRecordIsDamaged)),
                ("Problem", .string(summary.problems.map(\.description).joined(separator: "; "))),
                ("Partial", .boolean(summary.seal.isPartial)),
                ("LastComplete", .uint64(summary.lastComplete?.generation ?? 0)),
                ("LastCompleteTime", .int64((summary.lastComplete?.timestamp ?? 0) / 1000)),
            ]
        case .failure(let error):
            let problem: String
            if case .noArchive = error { problem = "" } else { problem = error.description }
            row += [("HasArchive", .boolean(false)), ("Problem", .string(problem))]
        }
        let last = app.lastActivity
        row += [
            ("LastAction", .string(last?.outcome.action ?? "")),
            ("LastTrigger", .string(last?.trigger.rawValue ?? "")),
            ("LastOutcome", .string(last?.outcome.word ?? "")),
            ("LastDetail", .string(last?.detail ?? "")),
            ("LastTime", .int64(last.map { microseconds($0.time) } ?? 0)),
            ("LastObjects", .array(elementSignature: "(ss)", (last?.omissions ?? []).map { .structure([.string($0.pathText), .string($0.reason)]) })),
        ]
        return row
    }

    /// One `ListPlugins` row: file, app id, ABI version, state with the way out.
    static func row(_ plugin: DaemonControl.Plugin) -> DBusValue {
        let state: String
        switch plugin.state {
        case .loaded:
            state = "loaded"
        case .changedOnDisk:
            state = "loaded; the file changed since: its next save starts the new build"
        case .quarantined(let reason):
            state = "quarantined: \(reason); fix or rebuild the plugin (a changed file is tried again at the next save, or now with restored-ctl reload), or remove it"
        case .refused(let reason):
            state = reason
        }
        return .structure([.string(plugin.file), .string(plugin.appID?.rawValue ?? ""), .uint32(plugin.abiVersion), .string(state)])
    }

    /// Emits the signal of a finished save or restore.
    static func emit(_ activity: AppActivity, of appID: AppID, on connection: DBusConnection) {
        let signal: (String, [DBusValue])?
        switch activity.outcome {
        case .save(.saved):
            signal = ("AppSaved", [.string(appID.rawValue), .uint64(activity.generation ?? 0), .string(activity.trigger.rawValue)])
        case .save(.partial):
            // Written, and a problem: both are said.
            try? connection.emit(path: Daemon.objectPath, interface: Daemon.interface, member: "AppSaved", arguments: [
                .string(appID.rawValue), .uint64(activity.generation ?? 0), .string(activity.trigger.rawValue),
            ])
            signal = ("AppFailed", [.string(appID.rawValue), .string(activity.outcome.action), .string(activity.detail)])
        case .save(.declined), .save(.kept):
            signal = nil
        case .save(.failed), .restore(.failed), .restore(.unusableArchive):
            signal = ("AppFailed", [.string(appID.rawValue), .string(activity.outcome.action), .string(activity.detail)])
        case .restore(let outcome):
            signal = ("AppRestored", [.string(appID.rawValue), .string(outcome.rawValue), .string(activity.trigger.rawValue)])
        }
        guard let (member, arguments) = signal else { return }
        try? connection.emit(path: Daemon.objectPath, interface: Daemon.interface, member: member, arguments: arguments)
    }

    /// The app id `text` names; `InvalidAppId` when it names none.
    static func appID(_ text: String) throws(DBusError) -> AppID {
        do {
            return try AppID(text)
        } catch {
            let refusal = AdminError.invalidAppID(error)
            throw DBusError(name: errorPrefix + refusal.name, message: refusal.message)
        }
    }

    /// The app ids of `identifiers`; `InvalidAppId` for one that is not.
    static func appIDs(_ identifiers: [String]) throws(DBusError) -> [AppID] {
        var appIDs: [AppID] = []
        for identifier in identifiers { appIDs.append(try appID(identifier)) }
        return appIDs
    }

    /// Runs a request of the daemon, naming its refusal `org.restored1.Error.*`.
    @discardableResult
    static func answering<Result>(_ request: () async throws(AdminError) -> Result) async throws(DBusError) -> Result {
        do {
            return try await request()
        } catch {
            throw DBusError(name: errorPrefix + error.name, message: error.message)
        }
    }

    /// Refuses callers that run as another user, even on the session bus.
    static func requireOwnUser(_ call: DBusMethodCall) async throws {
        let uid = try await call.connection.unixUser(of: call.sender ?? "")
        guard uid == getuid() else {
            throw DBusError.accessDenied("restored serves only user \(getuid()); the caller runs as user \(uid)")
        }
    }

    static func microseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }
}
