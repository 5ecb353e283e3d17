internal import CDBus
import Synchronization
import SystemSupport

/// A private connection to a D-Bus bus.
///
/// Calls are asynchronous and never block a Swift concurrency thread: the
/// connection's own thread (``DBusEventLoop``) does all libdbus work and
/// resumes callers when replies arrive. Signals are delivered as
/// `AsyncStream`s; exported objects' methods run as tasks and reply when
/// they finish.
public final class DBusConnection: Sendable {
    /// Which bus to connect to.
    public enum Bus: Sendable {
        /// The session bus (`DBUS_SESSION_BUS_ADDRESS`, as libdbus reads it).
        case session
        /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS` or the default socket).
        case system
        /// A bus at this address.
        case address(String)
    }

    /// The bus driver's name.
    public static let busName = "org.freedesktop.DBus"

    private struct Subscription {
        let rule: DBusMatchRule
        let continuation: AsyncStream<DBusMessage>.Continuation
        /// The bus's `NameOwnerChanged` rule added for it, removed with it
        /// (the bus counts every AddMatch: a connection that subscribes
        /// again and again must not pile them up).
        var ownerRule: DBusMatchRule?
    }

    private struct State {
        var nextSubscription = 0
        var subscriptions: [Int: Subscription] = [:]
        var objects: [String: [DBusInterface]] = [:]
        /// Unique owners of well-known names that subscriptions filter on.
        var owners: [String: String] = [:]
        var isClosed = false
    }

    private let loop: DBusEventLoop
    private let state = Mutex(State())
    /// This connection's unique name on the bus, like `:1.42`.
    public let uniqueName: String

    private static let threadsReady: Bool = dbus_threads_init_default() != 0

    private init(loop: DBusEventLoop, uniqueName: String) {
        self.loop = loop
        self.uniqueName = uniqueName
    }

    deinit {
        loop.stop()
    }

    /// Connects to `bus` and registers with it.
    ///
    /// Throws a ``DBusError`` whose message says which bus could not be
    /// reached (for example when `DBUS_SESSION_BUS_ADDRESS` is unset).
    public static func connect(to bus: Bus) async throws(DBusError) -> DBusConnection {
        guard threadsReady else { throw DBusError.failed("libdbus could not enable threads") }
        let loop = try DBusEventLoop()
        try await loop.start { () throws(DBusError) -> OpaquePointer in
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            defer { dbus_error_free(&error) }
            var connection: OpaquePointer?
            let what: String
            switch bus {
            case .session:
                what = "the session bus"
                connection = dbus_bus_get_private(DBUS_BUS_SESSION, &error)
            case .system:
                what = "the system bus"
                connection = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
            case .address(let address):
                what = "the bus at \(address)"
                connection = dbus_connection_open_private(address, &error)
                if let opened = connection, dbus_bus_register(opened, &error) == 0 {
                    dbus_connection_close(opened)
                    dbus_connection_unref(opened)
                    connection = nil
                }
            }
            guard let connection else {
                let reason = dbus_error_is_set(&error) != 0 ? String(cString: error.message) : "unknown error"
                throw DBusError.disconnected("cannot connect to \(what): \(reason)")
            }
            return connection
        }
        let name = await onLoop(loop) { connection in
            dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
        }
        let connection = DBusConnection(loop: loop, uniqueName: name ?? "")
        // The loop's callbacks are the loop thread's state: set them there.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.perform { [weak connection] in
                loop.filter = { message in connection?.handle(message) ?? false }
                loop.disconnected = { connection?.finishSubscriptions() }
                continuation.resume()
            }
        }
        return connection
    }

    /// ``connect(to:)`` that gives up after `limit`. libdbus waits up to its
    /// default of 25 seconds for a bus that accepted the connection and
    /// does not answer its `Hello`; a caller with a budget (a walk before
    /// suspend) cannot. A connection that arrives after the limit is closed.
    public static func connect(to bus: Bus, within limit: Duration) async throws(DBusError) -> DBusConnection {
        let (attempts, delivery) = AsyncStream<Result<DBusConnection, DBusError>>.makeStream(bufferingPolicy: .unbounded)
        let attempt = Task {
            let result: Result<DBusConnection, DBusError>
            do throws(DBusError) {
                result = .success(try await connect(to: bus))
            } catch {
                result = .failure(error)
            }
            delivery.yield(result)
            delivery.finish()
            return result
        }
        guard let result = await attempts.first(within: limit, where: { $0 }) else {
            Task { if case .success(let late) = await attempt.value { late.close() } }
            throw DBusError.failed("the bus did not answer within \(limit)")
        }
        return try result.get()
    }

    /// Closes the connection: signal streams finish, calls under way fail.
    public func close() {
        finishSubscriptions()
        loop.stop()
    }

    // MARK: Calls

    /// Sends a method call and returns the reply; an error reply throws it.
    public func call(_ message: DBusMessage, timeout: Duration = .seconds(25)) async throws(DBusError) -> DBusMessage {
        let milliseconds = timeout.pollMilliseconds
        let result: Result<DBusMessage, DBusError> = await withCheckedContinuation { continuation in
            let box = ReplyBox(continuation)
            loop.perform { [loop] in
                guard let connection = loop.connection else {
                    box.resume(.failure(DBusError.disconnected("the connection is closed")))
                    return
                }
                var pending: OpaquePointer?
                guard dbus_connection_send_with_reply(connection, message.pointer, &pending, milliseconds) != 0, let pending else {
                    box.resume(.failure(DBusError.disconnected("the connection is closed")))
                    return
                }
                let context = Unmanaged.passRetained(box).toOpaque()
                dbus_pending_call_set_notify(pending, { pending, context in
                    guard let pending, let context else { return }
                    let box = Unmanaged<ReplyBox>.fromOpaque(context).takeUnretainedValue()
                    if let reply = dbus_pending_call_steal_reply(pending) {
                        box.resume(.success(DBusMessage(taking: reply)))
                    } else {
                        box.resume(.failure(DBusError(name: DBusError.noReplyName, message: "no reply")))
                    }
                }, context, { context in
                    guard let context else { return }
                    // Freed without a reply (the connection closed): fail the
                    // call; a box already answered ignores this.
                    let box = Unmanaged<ReplyBox>.fromOpaque(context)
                    box.takeUnretainedValue().resume(.failure(DBusError.disconnected("the connection closed before the reply")))
                    box.release()
                })
                dbus_pending_call_unref(pending)
            }
        }
        let reply = try result.get()
        if let error = reply.error { throw error }
        return reply
    }

    /// Calls a method and returns the reply's arguments.
    public func call(
        destination: String, path: String, interface: String, member: String,
        arguments: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws(DBusError) -> [DBusValue] {
        let message = try DBusMessage.methodCall(destination: destination, path: path, interface: interface, member: member, arguments: arguments)
        return try await call(message, timeout: timeout).arguments()
    }

    /// Sends a message that expects no reply (a signal, a reply).
    public func send(_ message: DBusMessage) {
        loop.perform { [loop] in
            guard let connection = loop.connection else { return }
            _ = dbus_connection_send(connection, message.pointer, nil)
        }
    }

    /// Emits a signal.
    public func emit(path: String, interface: String, member: String, arguments: [DBusValue] = []) throws(DBusError) {
        send(try DBusMessage.signal(path: path, interface: interface, member: member, arguments: arguments))
    }

    /// Emits `org.freedesktop.DBus.Properties.PropertiesChanged`.
    public func emitPropertiesChanged(path: String, interface: String, changed: [(String, DBusValue)], invalidated: [String] = []) throws(DBusError) {
        try emit(
            path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
            arguments: [.string(interface), .properties(changed), .strings(invalidated)]
        )
    }

    // MARK: The bus

    /// Asks for a well-known name; throws unless this connection became its owner.
    public func requestName(_ name: String) async throws(DBusError) {
        let doNotQueue: UInt32 = 4
        let reply = try await busCall("RequestName", [.string(name), .uint32(doNotQueue)])
        let code = reply.first?.uint64Value ?? 0
        guard code == 1 || code == 4 else {
            throw DBusError(name: "org.freedesktop.DBus.Error.AddressInUse", message: "the name \(name) is owned by another connection on the bus")
        }
    }

    /// The current unique owner of a name, or nil when it has none.
    public func owner(of name: String) async -> String? {
        (try? await busCall("GetNameOwner", [.string(name)]))?.first?.stringValue
    }

    /// The UNIX user id of the process behind a connection name.
    public func unixUser(of name: String) async throws(DBusError) -> UInt32 {
        let reply = try await busCall("GetConnectionUnixUser", [.string(name)])
        guard let uid = reply.first?.uint64Value, let value = UInt32(exactly: uid) else {
            throw DBusError.failed("the bus gave no user for \(name)")
        }
        return value
    }

    @discardableResult
    private func busCall(_ member: String, _ arguments: [DBusValue]) async throws(DBusError) -> [DBusValue] {
        try await call(destination: Self.busName, path: "/org/freedesktop/DBus", interface: Self.busName, member: member, arguments: arguments)
    }

    // MARK: Signals

    /// The signals that match `rule`, from now on, until the stream is dropped
    /// or the connection closes.
    public func signals(matching rule: DBusMatchRule) async throws(DBusError) -> AsyncStream<DBusMessage> {
        let (stream, continuation) = AsyncStream<DBusMessage>.makeStream(bufferingPolicy: .unbounded)
        if state.withLock({ $0.isClosed }) {
            continuation.finish()
            return stream
        }
        let id = state.withLock { state -> Int in
            state.nextSubscription += 1
            state.subscriptions[state.nextSubscription] = Subscription(rule: rule, continuation: continuation)
            return state.nextSubscription
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            let ended = self.state.withLock { $0.subscriptions.removeValue(forKey: id) }
            Task {
                _ = try? await self.busCall("RemoveMatch", [.string(rule.description)])
                if let ownerRule = ended?.ownerRule { _ = try? await self.busCall("RemoveMatch", [.string(ownerRule.description)]) }
            }
        }
        do {
            if let sender = rule.sender, !sender.hasPrefix(":"), sender != Self.busName {
                // Follow the owner of a well-known sender, so the signals of a
                // restarted service keep arriving.
                let ownerRule = DBusMatchRule(sender: Self.busName, interface: Self.busName, member: "NameOwnerChanged", firstArgument: sender)
                try await busCall("AddMatch", [.string(ownerRule.description)])
                let stillSubscribed = state.withLock { state -> Bool in
                    state.subscriptions[id]?.ownerRule = ownerRule
                    return state.subscriptions[id] != nil
                }
                if !stillSubscribed { _ = try? await busCall("RemoveMatch", [.string(ownerRule.description)]) }
                let owner = await self.owner(of: sender)
                state.withLock { $0.owners[sender] = owner ?? "" }
            }
            try await busCall("AddMatch", [.string(rule.description)])
        } catch {
            let ended = state.withLock { $0.subscriptions.removeValue(forKey: id) }
            if let ownerRule = ended?.ownerRule { _ = try? await busCall("RemoveMatch", [.string(ownerRule.description)]) }
            throw error
        }
        return stream
    }

    // MARK: Exported objects

    /// Serves `interfaces` at `path`, with org.freedesktop.DBus.Introspectable
    /// and org.freedesktop.DBus.Properties. Replaces what was served there.
    public func export(path: String, interfaces: [DBusInterface]) {
        state.withLock { $0.objects[path] = interfaces }
    }

    /// Stops serving `path`.
    public func unexport(path: String) {
        state.withLock { _ = $0.objects.removeValue(forKey: path) }
    }

    // MARK: Incoming messages (loop thread)

    private func handle(_ message: DBusMessage) -> Bool {
        switch message.kind {
        case .signal:
            deliver(message)
            return false
        case .methodCall:
            return dispatch(message)
        default:
            return false
        }
    }

    private func deliver(_ message: DBusMessage) {
        let targets = state.withLock { state -> [AsyncStream<DBusMessage>.Continuation] in
            if message.sender == Self.busName, message.member == "NameOwnerChanged",
               let arguments = try? message.arguments(), arguments.count == 3, let name = arguments[0].stringValue,
               state.owners.keys.contains(name) {
                // Keep the name (empty: no owner now) so its next owner is followed too.
                state.owners[name] = arguments[2].stringValue ?? ""
            }
            return state.subscriptions.values.compactMap { subscription in
                let owner = subscription.rule.sender.flatMap { state.owners[$0] }
                return subscription.rule.matches(message, senderOwner: owner) ? subscription.continuation : nil
            }
        }
        for continuation in targets { continuation.yield(message) }
    }

    private func finishSubscriptions() {
        let continuations = state.withLock { state -> [AsyncStream<DBusMessage>.Continuation] in
            state.isClosed = true
            defer { state.subscriptions.removeAll() }
            return state.subscriptions.values.map(\.continuation)
        }
        for continuation in continuations { continuation.finish() }
    }

    private func dispatch(_ message: DBusMessage) -> Bool {
        guard let path = message.path, let member = message.member else { return false }
        let (interfaces, children) = state.withLock { state -> ([DBusInterface]?, [String]) in
            let prefix = path == "/" ? "/" : path + "/"
            let children = Set(state.objects.keys.filter { $0.hasPrefix(prefix) }.compactMap {
                $0.dropFirst(prefix.count).split(separator: "/").first.map(String.init)
            })
            return (state.objects[path], children.sorted())
        }
        let interface = message.interface
        if interface == "org.freedesktop.DBus.Introspectable" || (interface == nil && member == "Introspect") {
            guard member == "Introspect", interfaces != nil || !children.isEmpty else { return false }
            reply(to: message) { [.string(Self.introspectionXML(interfaces ?? [], children: children))] }
            return true
        }
        guard let interfaces else { return false }
        if interface == "org.freedesktop.DBus.Properties" {
            reply(to: message) { [self] in try await self.properties(message, interfaces) }
            return true
        }
        let candidates = interface.map { name in interfaces.filter { $0.name == name } } ?? interfaces
        guard let method = candidates.lazy.flatMap(\.methods).first(where: { $0.name == member }) else {
            if let interface, !interfaces.contains(where: { $0.name == interface }) {
                reply(to: message) { throw DBusError(name: "org.freedesktop.DBus.Error.UnknownInterface", message: "\(path) has no interface \(interface)") }
            } else {
                reply(to: message) { throw DBusError.unknownMethod("\(path) has no method \(member)") }
            }
            return true
        }
        guard message.signature == method.inputSignature else {
            reply(to: message) {
                throw DBusError.invalidArguments("\(member) takes (\(method.inputSignature)), not (\(message.signature))")
            }
            return true
        }
        reply(to: message) { [self] in
            let call = DBusMethodCall(message: message, arguments: try message.arguments(), connection: self)
            return try await method.handler(call)
        }
        return true
    }

    /// Runs `body` as a task and sends its result (or error) as the reply.
    private func reply(to message: DBusMessage, _ body: @escaping @Sendable () async throws -> [DBusValue]) {
        Task { [self] in
            let reply: DBusMessage?
            do {
                reply = try message.reply(try await body())
            } catch let error as DBusError {
                reply = message.errorReply(error)
            } catch {
                reply = message.errorReply(DBusError.failed("\(error)"))
            }
            if message.expectsReply, let reply { send(reply) }
        }
    }

    private func properties(_ message: DBusMessage, _ interfaces: [DBusInterface]) async throws -> [DBusValue] {
        let arguments = try message.arguments()
        guard let interfaceName = arguments.first?.stringValue,
              let interface = interfaces.first(where: { $0.name == interfaceName })
        else {
            throw DBusError(name: "org.freedesktop.DBus.Error.UnknownInterface", message: "no interface \(arguments.first?.stringValue ?? "")")
        }
        switch message.member {
        case "Get":
            guard arguments.count == 2, let name = arguments[1].stringValue, let property = interface.properties.first(where: { $0.name == name }) else {
                throw DBusError.unknownProperty("\(interfaceName) has no property \(arguments.count > 1 ? arguments[1].stringValue ?? "" : "")")
            }
            return [.variant(await property.get())]
        case "GetAll":
            var values: [(String, DBusValue)] = []
            for property in interface.properties { values.append((property.name, await property.get())) }
            return [.properties(values)]
        case "Set":
            guard arguments.count == 3, let name = arguments[1].stringValue, let property = interface.properties.first(where: { $0.name == name }) else {
                throw DBusError.unknownProperty("\(interfaceName) has no such property")
            }
            guard let set = property.set else {
                throw DBusError(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "\(name) is read-only")
            }
            let value = arguments[2].unwrapped
            guard value.signature == property.signature else {
                throw DBusError.invalidArguments("\(name) takes a \(property.signature), not a \(value.signature)")
            }
            try await set(value)
            return []
        default:
            throw DBusError.unknownMethod("org.freedesktop.DBus.Properties has no method \(message.member ?? "")")
        }
    }

    static func introspectionXML(_ interfaces: [DBusInterface], children: [String]) -> String {
        var xml = """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>

            """
        if !interfaces.isEmpty {
            xml += """
                  <interface name="org.freedesktop.DBus.Introspectable">
                    <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
                  </interface>
                  <interface name="org.freedesktop.DBus.Properties">
                    <method name="Get"><arg name="interface" type="s" direction="in"/><arg name="name" type="s" direction="in"/><arg name="value" type="v" direction="out"/></method>
                    <method name="GetAll"><arg name="interface" type="s" direction="in"/><arg name="values" type="a{sv}" direction="out"/></method>
                    <method name="Set"><arg name="interface" type="s" direction="in"/><arg name="name" type="s" direction="in"/><arg name="value" type="v" direction="in"/></method>
                    <signal name="PropertiesChanged"><arg name="interface" type="s"/><arg name="changed" type="a{sv}"/><arg name="invalidated" type="as"/></signal>
                  </interface>
                  <interface name="org.freedesktop.DBus.Peer">
                    <method name="Ping"/>
                    <method name="GetMachineId"><arg name="id" type="s" direction="out"/></method>
                  </interface>

                """
            for interface in interfaces { xml += interface.introspectionXML }
        }
        for child in children { xml += "  <node name=\"\(child)\"/>\n" }
        return xml + "</node>\n"
    }

    /// Runs `body` with the libdbus connection on the loop thread.
    private static func onLoop<T: Sendable>(_ loop: DBusEventLoop, _ body: @escaping @Sendable (OpaquePointer) -> T) async -> T? {
        await withCheckedContinuation { continuation in
            loop.perform { [loop] in
                continuation.resume(returning: loop.connection.map(body))
            }
        }
    }
}

/// Resumes one caller with its reply, once.
private final class ReplyBox: Sendable {
    private let continuation: Mutex<CheckedContinuation<Result<DBusMessage, DBusError>, Never>?>

    init(_ continuation: CheckedContinuation<Result<DBusMessage, DBusError>, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ result: Result<DBusMessage, DBusError>) {
        let continuation = self.continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        continuation?.resume(returning: result)
    }
}
