import Foundation
import RestoredArchive
import RestoredDBus
import RestoredEngine

/// `org.restored1.Manager`: what `restored-ctl` and `busctl` see and steer.
///
/// Every method refuses callers that run as another user, even on the
/// session bus. Errors are named: `org.restored1.Error.InvalidAppId`,
/// `UnknownApp`, `NoArchive`, `Failed`. Signals: `AppSaved(s app, t generation)`,
/// `AppRestored(s app, s outcome)`, `AppFailed(s app, s reason)`.
struct AdminInterface: Sendable {
    static let errorPrefix = "org.restored1.Error."

    let hosts: [AppHost]
    let catalog: PluginCatalog
    let engine: RestorationEngine
    let inhibitor: LogindInhibitor?
    let connection: DBusConnection

    var interface: DBusInterface {
        let admin = self
        return DBusInterface(Daemon.interface, methods: [
            .init("Status", outputs: [.init("status", "a{sv}")]) { call in
                try await Daemon.requireOwnUser(call)
                return [.properties([
                    ("State", .string("running")),
                    ("LockHeld", .boolean(await admin.inhibitor?.isHeld ?? false)),
                    ("Apps", .uint32(UInt32(admin.hosts.count))),
                    ("PluginsLoaded", .uint32(UInt32(admin.catalog.plugins.count))),
                    ("PluginsRefused", .uint32(UInt32(admin.catalog.refusals.count))),
                ])]
            },
            .init("ListPlugins", outputs: [.init("plugins", "a(ssus)")]) { call in
                try await Daemon.requireOwnUser(call)
                let loaded = admin.catalog.plugins.map { plugin in
                    DBusValue.structure([.string(plugin.file.string), .string(plugin.appID.rawValue), .uint32(plugin.abiVersion), .string("loaded")])
                }
                let refused = admin.catalog.refusals.map { refusal in
                    DBusValue.structure([.string(refusal.file.string), .string(""), .uint32(0), .string(refusal.description)])
                }
                return [.array(elementSignature: "(ssus)", loaded + refused)]
            },
            .init("Save", inputs: [.init("apps", "as")], outputs: [.init("saved", "u")]) { call in
                try await Daemon.requireOwnUser(call)
                let selected = try admin.hosts(try call.strings(at: 0))
                let reports = await withTaskGroup(of: PreservationReport.self) { group in
                    for host in selected { group.addTask { await host.preserve(using: admin.engine) } }
                    return await group.reduce(into: []) { $0.append($1) }
                }
                var saved: UInt32 = 0
                for report in reports {
                    switch report.outcome {
                    case .saved(let generation):
                        saved += 1
                        try? admin.connection.emit(path: Daemon.objectPath, interface: Daemon.interface, member: "AppSaved",
                                                   arguments: [.string(report.appID.rawValue), .uint64(generation)])
                    case .declined:
                        break
                    case .failed(let reason):
                        try? admin.connection.emit(path: Daemon.objectPath, interface: Daemon.interface, member: "AppFailed",
                                                   arguments: [.string(report.appID.rawValue), .string(reason)])
                    }
                }
                return [.uint32(saved)]
            },
            .init("Restore", inputs: [.init("apps", "as"), .init("force", "b")], outputs: [.init("restored", "u")]) { call in
                try await Daemon.requireOwnUser(call)
                let selected = try admin.hosts(try call.strings(at: 0))
                let mode: RestorationMode = try call.bool(at: 1) ? .forced : .automatic
                var restored: UInt32 = 0
                for host in selected {
                    let report = await host.restore(using: admin.engine, mode: mode)
                    if report.outcome == .restored { restored += 1 }
                    try? admin.connection.emit(path: Daemon.objectPath, interface: Daemon.interface, member: "AppRestored",
                                               arguments: [.string(report.appID.rawValue), .string("\(report.outcome)")])
                }
                return [.uint32(restored)]
            },
            .init("Discard", inputs: [.init("app", "s")]) { call in
                try await Daemon.requireOwnUser(call)
                let appID = try Self.appID(try call.string(at: 0))
                do {
                    guard try admin.engine.store.discard(appID) else { throw Self.noArchive(appID) }
                } catch let error as ArchiveStoreError {
                    throw DBusError(name: Self.errorPrefix + "Failed", message: error.description)
                }
                return []
            },
            .init("SetIgnoreSnapshot", inputs: [.init("app", "s"), .init("ignore", "b")]) { call in
                try await Daemon.requireOwnUser(call)
                let appID = try Self.appID(try call.string(at: 0))
                let ignore = try call.bool(at: 1)
                do throws(ArchiveStoreError) {
                    _ = try admin.engine.store.update(appID) { $0.ignoresSnapshot = ignore }
                } catch {
                    if case .noArchive = error { throw Self.noArchive(appID) }
                    throw DBusError(name: Self.errorPrefix + "Failed", message: error.description)
                }
                return []
            },
        ], properties: [
            .init("Version", signature: "s", get: { .string(RestoredVersion.string) }),
            .init("Apps", signature: "as", get: { .strings(admin.hosts.map(\.appID.rawValue)) }),
            .init("LockHeld", signature: "b", get: { .boolean(await admin.inhibitor?.isHeld ?? false) }),
        ], signals: [
            .init("AppSaved", arguments: [.init("app", "s"), .init("generation", "t")]),
            .init("AppRestored", arguments: [.init("app", "s"), .init("outcome", "s")]),
            .init("AppFailed", arguments: [.init("app", "s"), .init("reason", "s")]),
        ])
    }

    /// The hosts of `identifiers`, or every host for none; named errors otherwise.
    func hosts(_ identifiers: [String]) throws -> [AppHost] {
        guard !identifiers.isEmpty else { return hosts }
        return try identifiers.map { identifier in
            let appID = try Self.appID(identifier)
            guard let host = hosts.first(where: { $0.appID == appID }) else {
                throw DBusError(name: Self.errorPrefix + "UnknownApp", message: "no plugin restores \(appID); ListPlugins shows what is loaded")
            }
            return host
        }
    }

    static func appID(_ text: String) throws -> AppID {
        do {
            return try AppID(text)
        } catch {
            throw DBusError(name: errorPrefix + "InvalidAppId", message: error.description)
        }
    }

    static func noArchive(_ appID: AppID) -> DBusError {
        DBusError(name: errorPrefix + "NoArchive", message: "there is no archive for \(appID)")
    }
}
