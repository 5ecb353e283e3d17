import Foundation
import Glibc
import PluginToolkit
import RestoredDBus
import RestoredTestSupport
import SystemSupport
import Testing

/// The toolkit's D-Bus client against real peers on a private bus: one that
/// answers, one that never does, one that answers in shapes no interface
/// has (a python-dbus service written to be hostile), and a bus that goes
/// away. Every call runs on a thread of its own, as a plugin's callback
/// does. (The limits checked are the deadlines' purpose, far above what
/// they give: no speed is measured here.)
@Suite struct DBusClientTests {
    /// How long a call whose deadline is 1 s may take at most: well below
    /// libdbus's 25 s default, well above any load of the machine.
    static let ceiling: Duration = .seconds(12)
    /// The deadline of the calls that are not under test: every suite at
    /// once on two cores can keep a task from its thread for seconds.
    static let setup: Duration = .seconds(60)

    /// `work` on a thread of its own (a plugin host's), never a task's.
    static func onThread<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    /// A player-like peer: two instances' names, an object with properties
    /// and a method that answers, and one that never does.
    static func peer(on bus: PrivateBus) async throws -> DBusConnection {
        let peer = try await bus.connect()
        peer.export(path: "/org/example/Player", interfaces: [DBusInterface(
            "org.example.Player",
            methods: [
                .init("Echo", inputs: [.init("text", "s")], outputs: [.init("text", "s")]) { call in [.string("echo: \(try call.string(at: 0))")] },
                .init("Hang") { _ in
                    try await Task.sleep(for: .seconds(3600))
                    return []
                },
            ],
            properties: [
                .init("Position", signature: "x") { .int64(42_000_000) },
                .init("Status", signature: "s") { .string("Paused") },
            ]
        )])
        try await peer.requestName("org.example.Player.instance1")
        try await peer.requestName("org.example.Player.instance2")
        return peer
    }

    @Test("An app's instances are found by their names' prefix, their properties read one or all, a method called, and each name's owner and process told by the bus")
    func answeringPeer() async throws {
        let bus = try await PrivateBus.start()
        let peer = try await Self.peer(on: bus)
        defer { peer.close() }
        let address = bus.address
        let result = await Self.onThread { () -> Result<[String], DBusError> in
            do throws(DBusError) {
                let client = try DBusClient.connect(to: .address(address), until: .now + Self.setup)
                defer { client.close() }
                let deadline = ContinuousClock.now + Self.setup
                var seen = try client.names(startingWith: "org.example.Player.", until: deadline)
                let properties = try client.properties(of: "org.example.Player", at: "/org/example/Player", on: "org.example.Player.instance1", until: deadline)
                seen.append("Position=\(properties["Position"]?.int64Value ?? -1) Status=\(properties["Status"]?.stringValue ?? "-")")
                let status = try client.property("Status", of: "org.example.Player", at: "/org/example/Player", on: "org.example.Player.instance2", until: deadline)
                seen.append(status.stringValue ?? "-")
                let echo = try client.call("Echo", of: "org.example.Player", at: "/org/example/Player", on: "org.example.Player.instance1", arguments: [.string("hi")], until: deadline)
                seen.append(echo.first?.stringValue ?? "-")
                seen.append(try client.owner(of: "org.example.Player.instance1", until: deadline) ?? "-")
                seen.append(try client.owner(of: "org.example.Player.none", until: deadline) ?? "no owner")
                seen.append("\(try client.processID(of: "org.example.Player.instance2", until: deadline))")
                return .success(seen)
            } catch {
                return .failure(error)
            }
        }
        let seen = try result.get()
        #expect(seen == [
            "org.example.Player.instance1", "org.example.Player.instance2", "Position=42000000 Status=Paused", "Paused", "echo: hi",
            peer.uniqueName, "no owner", "\(getpid())",
        ])
    }

    @Test("A peer that never answers costs a call its deadline, not libdbus's 25 s, and the error says so; a deadline already past starts nothing")
    func silentPeer() async throws {
        let bus = try await PrivateBus.start()
        let peer = try await Self.peer(on: bus)
        defer { peer.close() }
        let address = bus.address
        let (outcome, elapsed, past) = await Self.onThread { () -> (Result<[DBusValue], DBusError>, Duration, DBusError?) in
            guard let client = try? DBusClient.connect(to: .address(address), until: .now + Self.setup) else {
                return (.failure(.failed("no connection")), .zero, nil)
            }
            defer { client.close() }
            let start = ContinuousClock.now
            let outcome = Result { () throws(DBusError) in
                try client.call("Hang", of: "org.example.Player", at: "/org/example/Player", on: "org.example.Player.instance1", until: .now + .seconds(1))
            }
            let elapsed = ContinuousClock.now - start
            var past: DBusError?
            do throws(DBusError) {
                _ = try client.names(startingWith: "", until: .now - .seconds(1))
            } catch {
                past = error
            }
            return (outcome, elapsed, past)
        }
        #expect(throws: DBusError.self) { try outcome.get() }
        if case .failure(let error) = outcome {
            #expect(error.name == DBusError.noReplyName, "\(error)")
        }
        #expect(elapsed >= Duration.milliseconds(900))
        #expect(elapsed < Self.ceiling)
        #expect(past?.name == DBusError.noReplyName)
        #expect(past?.message.contains("deadline") == true, "\(String(describing: past))")
    }

    @Test("A bus that goes away fails the calls made after it, and the plugin's process lives on (libdbus is told not to end it)")
    func busGoesAway() async throws {
        let bus = try await PrivateBus.start()
        let address = bus.address
        let client = try await Self.onThread { Result { () throws(DBusError) in try DBusClient.connect(to: .address(address), until: .now + Self.setup) } }.get()
        defer { client.close() }
        bus.stop()
        try await Task.sleep(for: .milliseconds(200))
        let outcome = await Self.onThread { Result { () throws(DBusError) in try client.names(startingWith: "", until: .now + Self.setup) } }
        #expect(throws: DBusError.self) { try outcome.get() }
        // A bus that is not there: connecting fails, with which bus it was.
        let again = await Self.onThread { Result { () throws(DBusError) in try DBusClient.connect(to: .address(address), until: .now + Self.setup) } }
        #expect(throws: DBusError.self) { try again.get() }
        if case .failure(let error) = again { #expect(error.message.contains(address), "\(error)") }
    }

    @Test("A hostile peer: properties answered as a string, a property answered with nothing and a method answered with the wrong types are errors of those calls (or values whose accessors say nil), never a crash")
    func hostilePeer() async throws {
        let bus = try await PrivateBus.start()
        let script = bus.directory.appendingPathComponent("hostile.py").path
        try """
            import dbus, dbus.service, dbus.mainloop.glib
            from gi.repository import GLib
            dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
            class Hostile(dbus.service.Object):
                @dbus.service.method("org.freedesktop.DBus.Properties", in_signature="s", out_signature="s")
                def GetAll(self, interface):
                    return "not a dictionary"
                @dbus.service.method("org.freedesktop.DBus.Properties", in_signature="ss", out_signature="")
                def Get(self, interface, name):
                    return None
                @dbus.service.method("org.example.Player", in_signature="s", out_signature="ay")
                def Echo(self, text):
                    return dbus.ByteArray(b"\\xff" * 1000)
            connection = dbus.bus.BusConnection("\(bus.address)")
            name = dbus.service.BusName("org.example.Hostile", connection)
            Hostile(connection, "/org/example/Player")
            print("ready", flush=True)
            GLib.MainLoop().run()
            """.write(toFile: script, atomically: false, encoding: .utf8)
        let hostile = try ChildProcess("/usr/bin/python3", [script], log: bus.directory.appendingPathComponent("hostile.log").path)
        defer { hostile.stop() }
        #expect(await OffPool.run { hostile.readLine(timeout: .seconds(60)) } == "ready")
        let address = bus.address
        let outcomes = await Self.onThread { () -> [String] in
            guard let client = try? DBusClient.connect(to: .address(address), until: .now + Self.setup) else { return ["no connection"] }
            defer { client.close() }
            let deadline = ContinuousClock.now + Self.setup
            var said: [String] = []
            do throws(DBusError) {
                _ = try client.properties(of: "org.example.Player", at: "/org/example/Player", on: "org.example.Hostile", until: deadline)
                said.append("GetAll taken")
            } catch {
                said.append(error.message.contains("other than properties") ? "GetAll refused" : "GetAll: \(error)")
            }
            do throws(DBusError) {
                _ = try client.property("Status", of: "org.example.Player", at: "/org/example/Player", on: "org.example.Hostile", until: deadline)
                said.append("Get taken")
            } catch {
                said.append(error.message.contains("with nothing") ? "Get refused" : "Get: \(error)")
            }
            let echo = try? client.call("Echo", of: "org.example.Player", at: "/org/example/Player", on: "org.example.Hostile", arguments: [.string("x")], until: deadline)
            said.append(echo?.first?.stringValue == nil && echo?.first?.arrayValue?.count == 1000 ? "Echo's bytes are no text" : "Echo: \(String(describing: echo))")
            return said
        }
        #expect(outcomes == ["GetAll refused", "Get refused", "Echo's bytes are no text"])
    }
}
