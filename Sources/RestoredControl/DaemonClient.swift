public import RestoredDBus

/// `restored-ctl`'s side of the admin API, `org.restored1.Manager` on the
/// session bus: typed calls, and every D-Bus error turned into a
/// ``ControlError`` that says what to do.
public final class DaemonClient: Sendable {
    static let busName = "org.restored1"
    static let path = "/org/restored1"
    static let interface = "org.restored1.Manager"
    static let errorPrefix = "org.restored1.Error."

    /// The session-bus connection.
    public let connection: DBusConnection

    /// A client over an open connection (it is the caller's to close).
    init(connection: DBusConnection) {
        self.connection = connection
    }

    /// Connects to the session bus; throws ``ExitStatus/daemonUnreachable``
    /// when there is none.
    public static func connect() async throws(ControlError) -> DaemonClient {
        do {
            return DaemonClient(connection: try await DBusConnection.connect(to: .session))
        } catch {
            throw ControlError(.daemonUnreachable, "cannot reach the session bus (\(error.message)); run restored-ctl inside your desktop session")
        }
    }

    /// The daemon if it is running now, without starting it through D-Bus
    /// activation; nil when it is not (or there is no session bus).
    public static func running() async -> DaemonClient? {
        guard let client = try? await connect() else { return nil }
        guard await client.connection.owner(of: busName) != nil else {
            client.close()
            return nil
        }
        return client
    }

    /// Closes the connection.
    public func close() { connection.close() }

    /// `Status`, with the problems found in the apps and plugins.
    public func status() async throws(ControlError) -> DaemonStatus {
        let fields = try await call("Status").first?.stringKeyedValue ?? [:]
        var status = DaemonStatus(daemonStatus: fields)
        status.findProblems(apps: try await apps(), plugins: try await plugins(), pluginDirectories: status.pluginsLoaded == 0 ? try await pluginDirectories() : [])
        return status
    }

    /// The state directory restored reports (`Status` alone).
    public func stateDirectory() async throws(ControlError) -> String {
        let fields = try await call("Status").first?.stringKeyedValue ?? [:]
        return fields["StateDirectory"]?.stringValue ?? ""
    }

    /// `ListApps`.
    public func apps() async throws(ControlError) -> [AppRecord] {
        let rows = try await call("ListApps").first?.arrayValue ?? []
        return rows.compactMap { $0.stringKeyedValue.map(AppRecord.init(daemonRow:)) }
    }

    /// `ListPlugins`.
    public func plugins() async throws(ControlError) -> [PluginRecord] {
        let rows = try await call("ListPlugins").first?.arrayValue ?? []
        return rows.compactMap { $0.structureValue.flatMap(PluginRecord.init(daemonRow:)) }
    }

    /// `Save`; returns how many apps were saved.
    public func save(_ apps: [String]) async throws(ControlError) -> UInt32 {
        UInt32(try await call("Save", [.strings(apps)]).first?.uint64Value ?? 0)
    }

    /// `Restore`; returns how many apps were restored.
    public func restore(_ apps: [String], force: Bool) async throws(ControlError) -> UInt32 {
        UInt32(try await call("Restore", [.strings(apps), .boolean(force)]).first?.uint64Value ?? 0)
    }

    /// `RestoreLastComplete`: restores `app` from the last complete archive
    /// kept beside its partial ones; returns the restore's outcome word.
    public func restoreLastComplete(_ app: String) async throws(ControlError) -> String {
        try await call("RestoreLastComplete", [.string(app)]).first?.stringValue ?? ""
    }

    /// The `PluginDirectories` property: where the running daemon loads plugins from.
    public func pluginDirectories() async throws(ControlError) -> [String] {
        do {
            let reply = try await connection.call(
                destination: Self.busName, path: Self.path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string(Self.interface), .string("PluginDirectories")]
            )
            return reply.first?.arrayValue?.compactMap(\.stringValue) ?? []
        } catch {
            throw Self.controlError(error)
        }
    }

    /// `Discard`.
    public func discard(_ app: String) async throws(ControlError) {
        _ = try await call("Discard", [.string(app)])
    }

    /// `SetIgnoreSnapshot`.
    public func setIgnoreSnapshot(_ app: String, _ ignore: Bool) async throws(ControlError) {
        _ = try await call("SetIgnoreSnapshot", [.string(app), .boolean(ignore)])
    }

    /// `ReloadPlugins`: the apps added and removed, and how many plugin files are refused.
    public func reloadPlugins() async throws(ControlError) -> (added: [String], removed: [String], refused: UInt32) {
        let reply = try await call("ReloadPlugins")
        func strings(_ index: Int) -> [String] { reply.count > index ? reply[index].arrayValue?.compactMap(\.stringValue) ?? [] : [] }
        return (strings(0), strings(1), UInt32(reply.count > 2 ? reply[2].uint64Value ?? 0 : 0))
    }

    /// Calls a method of the manager; saves and restores may take long.
    func call(_ member: String, _ arguments: [DBusValue] = []) async throws(ControlError) -> [DBusValue] {
        do {
            return try await connection.call(
                destination: Self.busName, path: Self.path, interface: Self.interface, member: member,
                arguments: arguments, timeout: .seconds(120)
            )
        } catch {
            throw Self.controlError(error)
        }
    }

    /// What a D-Bus error means to the user of restored-ctl.
    static func controlError(_ error: DBusError) -> ControlError {
        switch error.name {
        case errorPrefix + "InvalidAppId":
            return ControlError(.usage, error.message)
        case errorPrefix + "UnknownApp":
            return ControlError(.failure, "\(error.message) (known apps: restored-ctl apps)")
        case errorPrefix + "NoArchive":
            return ControlError(.failure, "\(error.message) (known apps: restored-ctl apps)")
        case errorPrefix + "Busy":
            return ControlError(.failure, error.message)
        case errorPrefix + "Failed":
            return ControlError(.failure, error.message)
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
             "org.freedesktop.DBus.Error.Disconnected":
            return ControlError.notRunning
        case let name where name.hasPrefix("org.freedesktop.DBus.Error.Spawn."):
            return ControlError(.daemonUnreachable, "restored failed to start (\(error.message)); see journalctl --user -u restored")
        case "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout":
            return ControlError(.failure, "restored did not answer in time (\(error.message)); see journalctl --user -u restored")
        case "org.freedesktop.DBus.Error.AccessDenied":
            return ControlError(.failure, "restored refused the call: \(error.message)")
        default:
            return ControlError(.failure, "restored answered \(error.name): \(error.message)")
        }
    }
}
