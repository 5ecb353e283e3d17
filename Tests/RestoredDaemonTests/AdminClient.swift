import RestoredDBus

/// Calls `org.restored1.Manager` the way restored-ctl does, for tests.
struct AdminClient {
    let connection: DBusConnection

    /// Calls `member` and returns its reply's arguments; `timeout` is
    /// D-Bus's default unless a test holds the call up on purpose.
    func call(_ member: String, _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)) async throws -> [DBusValue] {
        try await connection.call(
            destination: "org.restored1", path: "/org/restored1", interface: "org.restored1.Manager", member: member, arguments: arguments, timeout: timeout
        )
    }

    /// The name of the error `member` answers with, or nil when it succeeds.
    func errorName(_ member: String, _ arguments: [DBusValue] = []) async -> String? {
        do {
            _ = try await call(member, arguments)
            return nil
        } catch {
            return (error as? DBusError)?.name
        }
    }

    /// `ListApps`, one dictionary per app, by app id.
    func apps() async throws -> [String: [String: DBusValue]] {
        let rows = try await call("ListApps").first?.arrayValue ?? []
        var apps: [String: [String: DBusValue]] = [:]
        for row in rows {
            guard let fields = row.stringKeyedValue, let app = fields["App"]?.stringValue else { continue }
            apps[app] = fields
        }
        return apps
    }

    /// `Status`.
    func status() async throws -> [String: DBusValue] {
        try await call("Status").first?.stringKeyedValue ?? [:]
    }

    func close() { connection.close() }
}
