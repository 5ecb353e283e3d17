import Foundation
import RestoredDBus
import RestoredTestSupport
import Testing

/// The D-Bus layer against a real dbus-daemon.
@Suite struct DBusConnectionTests {
    static let path = "/org/restored/test/Calculator"
    static let interface = "org.restored.test.Calculator"

    /// A server exporting a test object, and a client; `sleeping` hears of
    /// each `Sleep` call as it begins.
    static func pair(
        on bus: PrivateBus, counter: Counter = Counter(), sleeping: AsyncStream<Void>.Continuation? = nil
    ) async throws -> (server: DBusConnection, client: DBusConnection) {
        let server = try await bus.connect()
        try await server.requestName("org.restored.test")
        server.export(path: path, interfaces: [
            DBusInterface(interface, methods: [
                .init("Add", inputs: [.init("a", "i"), .init("b", "i")], outputs: [.init("sum", "i")]) { call in
                    guard case .int32(let a) = call.arguments[0], case .int32(let b) = call.arguments[1] else { return [] }
                    return [.int32(a + b)]
                },
                .init("Fail") { _ in throw DBusError(name: "org.restored.test.Error.Nope", message: "no, because") },
                .init("Sleep") { _ in
                    sleeping?.yield()
                    // Longer than any test waits: the callers time out or close first,
                    // however slow a loaded machine is.
                    try await Task.sleep(for: .seconds(60))
                    return []
                },
                .init("OpenPipe", outputs: [.init("fd", "h")]) { _ in
                    var ends: [Int32] = [-1, -1]
                    guard pipe(&ends) == 0 else { throw DBusError.failed("pipe") }
                    _ = "through the pipe".withCString { write(ends[1], $0, 16) }
                    close(ends[1])
                    return [.unixFD(DBusFileDescriptor(owning: ends[0]))]
                },
                .init("Caller", outputs: [.init("uid", "u")]) { call in
                    [.uint32(try await call.connection.unixUser(of: call.sender ?? ""))]
                },
            ], properties: [
                .init("Count", signature: "u", get: { .uint32(counter.value) }, set: { value in
                    counter.value = UInt32(value.uint64Value ?? 0)
                }),
                .init("Name", signature: "s", get: { .string("calculator") }),
            ], signals: [.init("Ticked", arguments: [.init("count", "u")])]),
        ])
        let client = try await bus.connect()
        return (server, client)
    }

    /// A value a property reads and writes.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: UInt32 = 7
        var value: UInt32 {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    @Test("Method calls, replies and named errors")
    func methods() async throws {
        let bus = try await PrivateBus.start()
        let (server, client) = try await Self.pair(on: bus)
        defer { server.close(); client.close() }
        #expect(!client.uniqueName.isEmpty && client.uniqueName != server.uniqueName)
        let sum = try await client.call(destination: "org.restored.test", path: Self.path, interface: Self.interface, member: "Add", arguments: [.int32(2), .int32(40)])
        #expect(sum == [.int32(42)])
        await #expect(throws: DBusError(name: "org.restored.test.Error.Nope", message: "no, because")) {
            _ = try await client.call(destination: "org.restored.test", path: Self.path, interface: Self.interface, member: "Fail")
        }
        await #expect {
            _ = try await client.call(destination: "org.restored.test", path: Self.path, interface: Self.interface, member: "Add", arguments: [.string("two")])
        } throws: { error in
            (error as? DBusError)?.name == "org.freedesktop.DBus.Error.InvalidArgs"
        }
        await #expect {
            _ = try await client.call(destination: "org.restored.test", path: Self.path, interface: Self.interface, member: "Missing")
        } throws: { error in
            (error as? DBusError)?.name == "org.freedesktop.DBus.Error.UnknownMethod"
        }
        // The caller is identified by the bus: the foreign-uid check's building block.
        let uid = try await client.call(destination: "org.restored.test", path: Self.path, interface: Self.interface, member: "Caller")
        #expect(uid == [.uint32(getuid())])
    }

    @Test("A second owner of a name is refused with a clear error")
    func nameOwnership() async throws {
        let bus = try await PrivateBus.start()
        let (server, client) = try await Self.pair(on: bus)
        defer { server.close(); client.close() }
        await #expect {
            try await client.requestName("org.restored.test")
        } throws: { error in
            "\(error)".contains("owned by another connection")
        }
        #expect(await client.owner(of: "org.restored.test") == server.uniqueName)
    }

    @Test("Calls time out without blocking, and other calls go on meanwhile")
    func timeouts() async throws {
        let bus = try await PrivateBus.start()
        let (server, client) = try await Self.pair(on: bus)
        defer { server.close(); client.close() }
        let slow = Task {
            try await client.call(destination: "org.restored.test", path: Self.path, interface: Self.interface, member: "Sleep", timeout: .milliseconds(200))
        }
        let fast = try await client.call(destination: "org.restored.test", path: Self.path, interface: Self.interface, member: "Add", arguments: [.int32(1), .int32(1)])
        #expect(fast == [.int32(2)])
        await #expect {
            _ = try await slow.value
        } throws: { error in
            (error as? DBusError)?.name == DBusError.noReplyName
        }
    }

    @Test("Properties: Get, GetAll, Set, read-only refusal, PropertiesChanged")
    func properties() async throws {
        let bus = try await PrivateBus.start()
        let counter = Counter()
        let (server, client) = try await Self.pair(on: bus, counter: counter)
        defer { server.close(); client.close() }
        let properties = "org.freedesktop.DBus.Properties"
        let count = try await client.call(destination: "org.restored.test", path: Self.path, interface: properties, member: "Get", arguments: [.string(Self.interface), .string("Count")])
        #expect(count == [.variant(.uint32(7))])
        let all = try await client.call(destination: "org.restored.test", path: Self.path, interface: properties, member: "GetAll", arguments: [.string(Self.interface)])
        #expect(all.first?.stringKeyedValue == ["Count": .uint32(7), "Name": .string("calculator")])
        _ = try await client.call(destination: "org.restored.test", path: Self.path, interface: properties, member: "Set", arguments: [.string(Self.interface), .string("Count"), .variant(.uint32(9))])
        #expect(counter.value == 9)
        await #expect {
            _ = try await client.call(destination: "org.restored.test", path: Self.path, interface: properties, member: "Set", arguments: [.string(Self.interface), .string("Name"), .variant(.string("x"))])
        } throws: { error in
            (error as? DBusError)?.name == "org.freedesktop.DBus.Error.PropertyReadOnly"
        }

        let changes = try await client.signals(matching: DBusMatchRule(sender: "org.restored.test", path: Self.path, interface: properties, member: "PropertiesChanged"))
        try server.emitPropertiesChanged(path: Self.path, interface: Self.interface, changed: [("Count", .uint32(10))])
        var iterator = changes.makeAsyncIterator()
        let change = try #require(await iterator.next())
        let arguments = try change.arguments()
        #expect(arguments.first == .string(Self.interface))
        #expect(arguments[1].stringKeyedValue == ["Count": .uint32(10)])
    }

    @Test("Signals from a well-known name arrive through its unique owner")
    func signals() async throws {
        let bus = try await PrivateBus.start()
        let (server, client) = try await Self.pair(on: bus)
        defer { server.close(); client.close() }
        let ticks = try await client.signals(matching: DBusMatchRule(sender: "org.restored.test", interface: Self.interface, member: "Ticked"))
        let unrelated = try await client.signals(matching: DBusMatchRule(interface: Self.interface, member: "Other"))
        _ = unrelated
        for count in 1...3 { try server.emit(path: Self.path, interface: Self.interface, member: "Ticked", arguments: [.uint32(UInt32(count))]) }
        var received: [DBusValue] = []
        for await signal in ticks {
            received += try signal.arguments()
            if received.count == 3 { break }
        }
        #expect(received == [.uint32(1), .uint32(2), .uint32(3)])
        #expect(server.uniqueName.hasPrefix(":"))
    }

    @Test("Introspection describes the object and lists children of parent paths")
    func introspection() async throws {
        let bus = try await PrivateBus.start()
        let (server, client) = try await Self.pair(on: bus)
        defer { server.close(); client.close() }
        let xml = try await client.call(destination: "org.restored.test", path: Self.path, interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
        let text = try #require(xml.first?.stringValue)
        #expect(text.contains("<method name=\"Add\">"))
        #expect(text.contains("<property name=\"Count\" type=\"u\" access=\"readwrite\"/>"))
        #expect(text.contains("<signal name=\"Ticked\">"))
        let root = try await client.call(destination: "org.restored.test", path: "/", interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
        #expect(root.first?.stringValue?.contains("<node name=\"org\"/>") == true)
    }

    @Test("A file descriptor crosses the bus and is closed exactly once")
    func fileDescriptors() async throws {
        let bus = try await PrivateBus.start()
        let (server, client) = try await Self.pair(on: bus)
        defer { server.close(); client.close() }
        let reply = try await client.call(destination: "org.restored.test", path: Self.path, interface: Self.interface, member: "OpenPipe")
        guard case .unixFD(let descriptor)? = reply.first else {
            Issue.record("no descriptor in \(reply)")
            return
        }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = read(descriptor.rawValue, &buffer, 32)
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "through the pipe")
        #expect(descriptor.close())
        #expect(!descriptor.close())
        #expect(!descriptor.isOpen)
    }

    @Test("Losing the bus ends signal streams and fails calls with a clear error")
    func disconnection() async throws {
        let bus = try await PrivateBus.start()
        let client = try await bus.connect()
        defer { client.close() }
        let stream = try await client.signals(matching: DBusMatchRule(interface: "org.restored.test.Nothing"))
        bus.stop()
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        await #expect {
            _ = try await client.call(destination: "org.restored.test", path: "/", interface: "org.restored.test.X", member: "Y")
        } throws: { error in
            error is DBusError
        }
    }

    @Test("Closing the connection fails the calls under way and later ones, and ends new subscriptions")
    func closeWithCallsUnderWay() async throws {
        let bus = try await PrivateBus.start()
        let (sleeping, sleepBegins) = AsyncStream<Void>.makeStream()
        let (server, client) = try await Self.pair(on: bus, sleeping: sleepBegins)
        defer { server.close() }
        let slow = Task {
            try await client.call(destination: "org.restored.test", path: Self.path, interface: Self.interface, member: "Sleep", timeout: .seconds(60))
        }
        // The call is under way once the server has it.
        for await _ in sleeping { break }
        client.close()
        await #expect(throws: DBusError.self) { _ = try await slow.value }
        await #expect(throws: DBusError.self) {
            _ = try await client.call(destination: "org.restored.test", path: Self.path, interface: Self.interface, member: "Add", arguments: [.int32(1), .int32(1)])
        }
        let stream = try? await client.signals(matching: DBusMatchRule(interface: Self.interface))
        if let stream {
            var iterator = stream.makeAsyncIterator()
            #expect(await iterator.next() == nil)
        }
    }

    @Test("Connecting to a bus that is not there says which")
    func missingBus() async throws {
        await #expect {
            _ = try await DBusConnection.connect(to: .address("unix:path=/nonexistent/restored-test-bus"))
        } throws: { error in
            "\(error)".contains("cannot connect to the bus at unix:path=/nonexistent/restored-test-bus")
        }
    }
}
