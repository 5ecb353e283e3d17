import FoundationEssentials
import RestoredArchive
import RestoredDBus
import RestoredEngine

/// `org.restored1.Manager`: what `restored-ctl` and `busctl` see and steer.
///
/// Every method refuses callers that run as another user, even on the
/// session bus. Errors are named `org.restored1.Error.*`: `InvalidAppId`,
/// `UnknownApp`, `NoArchive`, `Busy`, `Failed`. Times are microseconds since
/// 1970-01-01 UTC (0 for never). The shapes are documented in the README
/// ("The admin D-Bus API"); keys are only ever added.
struct AdminInterface: Sendable {
    static let errorPrefix = "org.restored1.Error."

    let daemon: Daemon
    let inhibitor: LogindInhibitor?
    let connection: DBusConnection

    private var registry: AppRegistry { daemon.apps }
    private var store: ArchiveStore { daemon.restorationEngine.store }

    var interface: DBusInterface {
        let admin = self
        return DBusInterface(Daemon.interface, methods: [
            .init("Status", outputs: [.init("status", "a{sv}")]) { call in
                try await Daemon.requireOwnUser(call)
                return [.properties(await admin.status())]
            },
            .init("ListApps", outputs: [.init("apps", "aa{sv}")]) { call in
                try await Daemon.requireOwnUser(call)
                return [.array(elementSignature: "a{sv}", admin.apps().map { .properties($0) })]
            },
            .init("ListPlugins", outputs: [.init("plugins", "a(ssus)")]) { call in
                try await Daemon.requireOwnUser(call)
                let loaded = admin.registry.hosts.map { host in
                    let state: String
                    if let quarantine = host.plugin.quarantineReason {
                        state = "quarantined: \(quarantine); fix or rebuild the plugin (a changed file is tried again at the next save, or now with restored-ctl reload), or remove it"
                    } else if host.plugin.hasChangedOnDisk {
                        state = "loaded; the file changed since: its next save starts the new build"
                    } else {
                        state = "loaded"
                    }
                    return DBusValue.structure([.string(host.plugin.file.string), .string(host.appID.rawValue), .uint32(host.identity.abiVersion), .string(state)])
                }
                let refused = admin.registry.refusals.map { refusal in
                    DBusValue.structure([.string(refusal.file.string), .string(""), .uint32(0), .string(refusal.description)])
                }
                return [.array(elementSignature: "(ssus)", loaded + refused)]
            },
            .init("Save", inputs: [.init("apps", "as")], outputs: [.init("saved", "u")]) { call in
                try await Daemon.requireOwnUser(call)
                let selected = try admin.hosts(try call.strings(at: 0))
                try Self.requireIdle(selected)
                let reports = await admin.daemon.saveAll(selected, trigger: .request, deadline: admin.daemon.requestDeadline)
                return [.uint32(UInt32(reports.filter { $0.outcome.word == .saved }.count))]
            },
            .init("Restore", inputs: [.init("apps", "as"), .init("force", "b")], outputs: [.init("restored", "u")]) { call in
                try await Daemon.requireOwnUser(call)
                let selected = try admin.hosts(try call.strings(at: 0))
                try Self.requireIdle(selected, restoring: true)
                let mode: RestorationMode = try call.bool(at: 1) ? .forced : .automatic
                let engine = admin.daemon.restorationEngine
                let deadline = admin.daemon.requestDeadline
                let restored = await withTaskGroup(of: Bool.self) { group in
                    for host in selected {
                        group.addTask { await host.restore(using: engine, mode: mode, trigger: .request, deadline: deadline).outcome == .restored }
                    }
                    return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                return [.uint32(UInt32(restored))]
            },
            .init("Discard", inputs: [.init("app", "s")]) { call in
                try await Daemon.requireOwnUser(call)
                let appID = try Self.appID(try call.string(at: 0))
                let host = admin.registry.host(for: appID)
                if let host { try Self.requireIdle([host]) }
                let removed: Bool
                do throws(ArchiveStoreError) {
                    if let host {
                        removed = try await host.discardArchive(in: admin.store)
                    } else {
                        removed = try admin.store.discard(appID)
                    }
                } catch {
                    throw Self.failed(error)
                }
                guard removed else { throw Self.noArchive(appID) }
                return []
            },
            .init("SetIgnoreSnapshot", inputs: [.init("app", "s"), .init("ignore", "b")]) { call in
                try await Daemon.requireOwnUser(call)
                let appID = try Self.appID(try call.string(at: 0))
                let ignore = try call.bool(at: 1)
                let host = admin.registry.host(for: appID)
                if let host { try Self.requireIdle([host]) }
                do throws(ArchiveStoreError) {
                    if let host {
                        try await host.setIgnoresSnapshot(ignore, in: admin.store)
                    } else {
                        _ = try admin.store.update(appID) { $0.ignoresSnapshot = ignore }
                    }
                } catch {
                    if case .noArchive = error { throw Self.noArchive(appID) }
                    throw Self.failed(error)
                }
                return []
            },
            .init("ReloadPlugins", outputs: [.init("added", "as"), .init("removed", "as"), .init("refused", "u")]) { call in
                try await Daemon.requireOwnUser(call)
                let result = await admin.registry.reload()
                if !result.added.isEmpty || !result.removed.isEmpty {
                    try? admin.connection.emitPropertiesChanged(
                        path: Daemon.objectPath, interface: Daemon.interface, changed: [("Apps", .strings(admin.registry.hosts.map(\.appID.rawValue)))]
                    )
                }
                return [.strings(result.added.map(\.rawValue)), .strings(result.removed.map(\.rawValue)), .uint32(UInt32(result.refused))]
            },
        ], properties: [
            .init("Version", signature: "s", get: { .string(RestoredVersion.string) }),
            .init("Apps", signature: "as", get: { .strings(admin.registry.hosts.map(\.appID.rawValue)) }),
            .init("LockHeld", signature: "b", get: { .boolean(await admin.inhibitor?.isHeld ?? false) }),
        ], signals: [
            .init("AppSaved", arguments: [.init("app", "s"), .init("generation", "t"), .init("trigger", "s")]),
            .init("AppRestored", arguments: [.init("app", "s"), .init("outcome", "s"), .init("trigger", "s")]),
            .init("AppFailed", arguments: [.init("app", "s"), .init("action", "s"), .init("reason", "s")]),
        ])
    }

    /// `Status`'s dictionary.
    func status() async -> [(String, DBusValue)] {
        let state = daemon.status
        let hosts = registry.hosts
        let lastSave = state.lastSave
        return [
            ("State", .string(state.phase.rawValue)),
            ("Version", .string(RestoredVersion.string)),
            ("LockHeld", .boolean(await inhibitor?.isHeld ?? false)),
            ("Logind", .boolean(state.logindReachable)),
            ("SessionManager", .boolean(state.sessionManagerRegistered)),
            ("Apps", .uint32(UInt32(registry.hosts.count))),
            ("PluginsLoaded", .uint32(UInt32(hosts.count))),
            ("PluginsRefused", .uint32(UInt32(registry.refusals.count))),
            ("StateDirectory", .string(store.directory.string)),
            ("LastSave", .int64(lastSave.map { Self.microseconds($0.time) } ?? 0)),
            ("LastSaveTrigger", .string(lastSave?.trigger.rawValue ?? "")),
            ("LastSaveSaved", .uint32(UInt32(lastSave?.saved ?? 0))),
            ("LastSaveFailed", .uint32(UInt32(lastSave?.failed ?? 0))),
        ]
    }

    /// `ListApps`'s rows: every app with a plugin or an archive, sorted by id.
    func apps() -> [[(String, DBusValue)]] {
        let hosts = registry.hosts
        let archived = (try? store.appIDs()) ?? []
        let appIDs = Set(hosts.map(\.appID)).union(archived).sorted()
        return appIDs.map { appID in
            let host = hosts.first { $0.appID == appID }
            var row: [(String, DBusValue)] = [
                ("App", .string(appID.rawValue)),
                ("Plugin", .string(host?.plugin.file.string ?? "")),
                ("PluginHostPid", .uint32(UInt32(host?.plugin.pid ?? 0))),
                ("Saving", .string(host?.saveInProgress?.rawValue ?? "")),
                ("Restoring", .boolean(host?.isRestoring ?? false)),
            ]
            row += Self.archiveFields(of: appID, in: store)
            let last = host?.lastActivity
            row += [
                ("LastAction", .string(last?.outcome.action ?? "")),
                ("LastTrigger", .string(last?.trigger.rawValue ?? "")),
                ("LastOutcome", .string(last?.outcome.word ?? "")),
                ("LastDetail", .string(last?.detail ?? "")),
                ("LastTime", .int64(last.map { Self.microseconds($0.time) } ?? 0)),
            ]
            return row
        }
    }

    /// What the archive of `appID` a restore would read says in its header
    /// (no object is decoded: listing 100 apps stays cheap).
    static func archiveFields(of appID: AppID, in store: ArchiveStore) -> [(String, DBusValue)] {
        do throws(ArchiveStoreError) {
            let summary = try store.summary(of: appID)
            return [
                ("HasArchive", .boolean(true)),
                ("Generation", .uint64(summary.seal.generation)),
                ("GenerationFile", .string(summary.source.fileName)),
                ("ArchiveTime", .int64(summary.seal.timestamp / 1000)),
                ("ArchiveSize", .uint64(UInt64(summary.byteCount))),
                ("IgnoreSnapshot", .boolean(summary.seal.ignoresSnapshot)),
                ("RestoreAttempts", .uint32(summary.seal.restoreAttempts)),
                ("Problem", .string(summary.problems.map(\.description).joined(separator: "; "))),
            ]
        } catch {
            let problem: String
            if case .noArchive = error { problem = "" } else { problem = error.description }
            return [("HasArchive", .boolean(false)), ("Problem", .string(problem))]
        }
    }

    /// Emits the signal of a finished save or restore.
    static func emit(_ activity: AppActivity, of appID: AppID, on connection: DBusConnection) {
        let signal: (String, [DBusValue])?
        switch activity.outcome {
        case .save(.saved):
            signal = ("AppSaved", [.string(appID.rawValue), .uint64(activity.generation ?? 0), .string(activity.trigger.rawValue)])
        case .save(.declined):
            signal = nil
        case .save(.failed), .restore(.failed), .restore(.unusableArchive):
            signal = ("AppFailed", [.string(appID.rawValue), .string(activity.outcome.action), .string(activity.detail)])
        case .restore(let outcome):
            signal = ("AppRestored", [.string(appID.rawValue), .string(outcome.rawValue), .string(activity.trigger.rawValue)])
        }
        guard let (member, arguments) = signal else { return }
        try? connection.emit(path: Daemon.objectPath, interface: Daemon.interface, member: member, arguments: arguments)
    }

    /// The hosts of `identifiers`, or every host for none; named errors otherwise.
    func hosts(_ identifiers: [String]) throws -> [AppHost] {
        guard !identifiers.isEmpty else { return registry.hosts }
        let appIDs = try identifiers.map(Self.appID)
        return try appIDs.map { appID in
            guard let host = registry.host(for: appID) else {
                throw DBusError(name: Self.errorPrefix + "UnknownApp", message: "no plugin for \(appID) is loaded")
            }
            return host
        }
    }

    /// Refuses with `Busy` when one of `hosts` is being saved or, with
    /// `restoring`, restored (a second restore would run into an app already
    /// restored).
    static func requireIdle(_ hosts: [AppHost], restoring: Bool = false) throws(DBusError) {
        for host in hosts {
            if let trigger = host.saveInProgress {
                throw DBusError(name: errorPrefix + "Busy", message: "\(host.appID) is being saved (\(trigger.rawValue)); try again when that save is done")
            }
            if restoring && host.isRestoring {
                throw DBusError(name: errorPrefix + "Busy", message: "\(host.appID) is being restored; try again when that restore is done")
            }
        }
    }

    static func appID(_ text: String) throws(DBusError) -> AppID {
        do {
            return try AppID(text)
        } catch {
            throw DBusError(name: errorPrefix + "InvalidAppId", message: error.description)
        }
    }

    static func noArchive(_ appID: AppID) -> DBusError {
        DBusError(name: errorPrefix + "NoArchive", message: "there is no archive for \(appID)")
    }

    /// `Failed`, for a store error.
    static func failed(_ error: ArchiveStoreError) -> DBusError {
        DBusError(name: errorPrefix + "Failed", message: error.description)
    }

    static func microseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }
}
