public import RestoredDBus
import PluginSupport

/// A value a D-Bus call takes or answers: a string, a number, an array, a
/// dictionary, a variant... Read one with its accessors (`stringValue`,
/// `int64Value`, `arrayValue`, `stringKeyedValue`, `unwrapped`), which
/// answer nil for another type, so that a peer's reply of the wrong shape
/// is never a crash.
public typealias DBusValue = RestoredDBus.DBusValue

/// A D-Bus error: its `name` (`org.freedesktop.DBus.Error.NoReply` when a
/// call's deadline passed, `...Disconnected` when the bus went) and the
/// peer's `message`.
public typealias DBusError = RestoredDBus.DBusError

/// A plugin's client of a D-Bus bus (the session bus unless told), for apps
/// reached over D-Bus: the names of their instances, their properties,
/// their methods.
///
/// A plugin's callbacks are synchronous and bounded by the walk's time, so
/// every call here blocks the calling thread until its answer or its
/// deadline (take it from ``WalkTime/deadline(in:atMost:)``): a peer that
/// never answers costs that deadline and no more, and the call throws a
/// `DBusError` named `org.freedesktop.DBus.Error.NoReply` that says so.
/// A bus that goes away ends nothing but the calls: they throw
/// `org.freedesktop.DBus.Error.Disconnected` (libdbus would end the whole
/// plugin host; restored's connection tells it not to). A reply of the
/// wrong shape (a hostile or broken peer) is an error of that call, never
/// a crash: the values are `DBusValue`s whose accessors (`stringValue`,
/// `stringKeyedValue` ...) answer nil for another type.
///
/// One client serves a whole walk, from any thread; ``close()`` it (or
/// drop it) when done.
///
/// What the SDK promises (SDK/README.md, "What the SDK promises"): this
/// class's methods, ``Bus``, ``DBusValue`` and ``DBusError``. It grows by
/// new methods (and new `DBusValue` cases: switch over one with a
/// `default`), never by changing these. Serving an object and following
/// signals are restored's own (its `RestoredDBus` layer, not promised):
/// ask for them in an issue if a plugin needs them.
public final class DBusClient: Sendable {
    /// Which bus a client connects to: `.session` (`DBUS_SESSION_BUS_ADDRESS`),
    /// `.system`, or `.address(...)` (a private bus, as in a test).
    public typealias Bus = DBusConnection.Bus

    /// The bus driver's name.
    static let driver = "org.freedesktop.DBus"
    /// How long past a call's deadline the thread waits for libdbus to
    /// deliver the call's own timeout, before giving up itself.
    static let grace = Duration.milliseconds(250)

    /// The connection under the client, for restored's own plugins
    /// (which serve objects on it): not part of the SDK's promise.
    @_spi(Restored) public let connection: DBusConnection

    private init(connection: DBusConnection) {
        self.connection = connection
    }

    deinit { connection.close() }

    /// Connects to `bus` by `deadline` (a bus that accepted the connection
    /// and does not answer costs the deadline, not libdbus's 25 s).
    public static func connect(to bus: Bus = .session, until deadline: ContinuousClock.Instant) throws(DBusError) -> DBusClient {
        let limit = ContinuousClock.now.duration(to: deadline)
        guard limit > .zero else { throw Self.late("connecting to the bus") }
        let connection = try blocking(until: deadline, "connecting to the bus") { () async throws(DBusError) in
            try await DBusConnection.connect(to: bus, within: limit)
        }
        return DBusClient(connection: connection)
    }

    /// Calls `member` of `interface` on the object `path` of `destination`
    /// and returns the reply's arguments.
    public func call(
        _ member: String, of interface: String, at path: String, on destination: String, arguments: [DBusValue] = [],
        until deadline: ContinuousClock.Instant
    ) throws(DBusError) -> [DBusValue] {
        let connection = connection
        let limit = ContinuousClock.now.duration(to: deadline)
        let what = "\(destination) answering \(interface).\(member)"
        guard limit > .zero else { throw Self.late(what) }
        return try Self.blocking(until: deadline, what) { () async throws(DBusError) in
            try await connection.call(destination: destination, path: path, interface: interface, member: member, arguments: arguments, timeout: limit)
        }
    }

    /// The property `name` of `interface` on `path` of `destination`
    /// (`org.freedesktop.DBus.Properties.Get`), its variant opened.
    public func property(
        _ name: String, of interface: String, at path: String, on destination: String, until deadline: ContinuousClock.Instant
    ) throws(DBusError) -> DBusValue {
        let reply = try call("Get", of: "org.freedesktop.DBus.Properties", at: path, on: destination, arguments: [.string(interface), .string(name)], until: deadline)
        guard let value = reply.first else { throw DBusError.failed("\(destination) answered Get of \(interface).\(name) with nothing") }
        if case .variant(let inner) = value { return inner }
        return value
    }

    /// Every property of `interface` on `path` of `destination`
    /// (`org.freedesktop.DBus.Properties.GetAll`), by name.
    public func properties(
        of interface: String, at path: String, on destination: String, until deadline: ContinuousClock.Instant
    ) throws(DBusError) -> [String: DBusValue] {
        let reply = try call("GetAll", of: "org.freedesktop.DBus.Properties", at: path, on: destination, arguments: [.string(interface)], until: deadline)
        guard let properties = reply.first?.stringKeyedValue else {
            throw DBusError.failed("\(destination) answered GetAll of \(interface) with something other than properties by name")
        }
        return properties.mapValues { value in
            if case .variant(let inner) = value { return inner }
            return value
        }
    }

    /// The names on the bus that start with `prefix` (the instances of an
    /// app: `org.mpris.MediaPlayer2.`), sorted; unique names (`:1.42`)
    /// only when `prefix` asks for them.
    public func names(startingWith prefix: String, until deadline: ContinuousClock.Instant) throws(DBusError) -> [String] {
        let reply = try call("ListNames", of: Self.driver, at: "/org/freedesktop/DBus", on: Self.driver, until: deadline)
        guard let names = reply.first?.arrayValue?.compactMap(\.stringValue) else { throw DBusError.failed("the bus answered ListNames with no list") }
        return names.filter { $0.hasPrefix(prefix) }.sorted()
    }

    /// The unique name that owns `name` now, nil when nobody does.
    public func owner(of name: String, until deadline: ContinuousClock.Instant) throws(DBusError) -> String? {
        do {
            return try call("GetNameOwner", of: Self.driver, at: "/org/freedesktop/DBus", on: Self.driver, arguments: [.string(name)], until: deadline)
                .first?.stringValue
        } catch where error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            return nil
        }
    }

    /// The process id of the connection that owns `name`, as the bus
    /// knows it (not as the peer claims it): how a plugin checks which
    /// program stands behind a name.
    public func processID(of name: String, until deadline: ContinuousClock.Instant) throws(DBusError) -> Int32 {
        let reply = try call("GetConnectionUnixProcessID", of: Self.driver, at: "/org/freedesktop/DBus", on: Self.driver, arguments: [.string(name)], until: deadline)
        guard let pid = reply.first?.int64Value.flatMap({ Int32(exactly: $0) }), pid > 0 else {
            throw DBusError.failed("the bus gave no process for \(name)")
        }
        return pid
    }

    /// Asks for the well-known `name`; throws unless this connection owns
    /// it (another does: `org.freedesktop.DBus.Error.AddressInUse`).
    public func requestName(_ name: String, until deadline: ContinuousClock.Instant) throws(DBusError) {
        let connection = connection
        try Self.blocking(until: deadline, "the bus answering RequestName") { () async throws(DBusError) in
            try await connection.requestName(name)
        }
    }

    /// Gives the well-known `name` up.
    public func releaseName(_ name: String, until deadline: ContinuousClock.Instant) throws(DBusError) {
        _ = try call("ReleaseName", of: Self.driver, at: "/org/freedesktop/DBus", on: Self.driver, arguments: [.string(name)], until: deadline)
    }

    /// Closes the connection: calls under way fail, later ones too.
    public func close() {
        connection.close()
    }

    /// `work` run in a task while this thread waits, at most until
    /// `deadline` and a little grace (a call whose deadline has passed
    /// before it is sent is not sent: it throws the same error).
    private static func blocking<Value: Sendable>(
        until deadline: ContinuousClock.Instant, _ what: String, _ work: @escaping @Sendable () async throws(DBusError) -> Value
    ) throws(DBusError) -> Value {
        guard let value = try Blocking.run(until: deadline + grace, work) else { throw late(what) }
        return value
    }

    /// The error of a call whose deadline passed.
    private static func late(_ what: String) -> DBusError {
        DBusError(name: DBusError.noReplyName, message: "no answer by the call's deadline (\(what))")
    }
}
