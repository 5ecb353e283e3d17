// SystemdNotifier against a NOTIFY_SOCKET the test listens on.

import RestoredTestSupport
import Foundation
import RestoredSystemd
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("SystemdNotifier")
struct SystemdNotifierTests {
    @Test("READY=1, STATUS=, WATCHDOG=1 and STOPPING=1 arrive exactly, one datagram each")
    func messagesOnPathSocket() async throws {
        try await withTemporaryDirectory { directory in
            let listener = try NotifyListener(path: directory.appending("notify"))
            defer { listener.close() }
            let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address])
            #expect(notifier.isEnabled)

            try notifier.ready(status: "Watching 2 apps")
            #expect(try listener.receive() == "READY=1\nSTATUS=Watching 2 apps")
            try notifier.status("Saving 2 apps\nfor suspend")
            #expect(try listener.receive() == "STATUS=Saving 2 apps for suspend")
            try notifier.watchdog()
            #expect(try listener.receive() == "WATCHDOG=1")
            try notifier.stopping(status: "Saving before exit")
            #expect(try listener.receive() == "STOPPING=1\nSTATUS=Saving before exit")
            try notifier.stopping()
            #expect(try listener.receive() == "STOPPING=1")
            try notifier.send([(name: "EXTEND_TIMEOUT_USEC", value: "5000000"), (name: "STATUS", value: "a\r\nb")])
            #expect(try listener.receive() == "EXTEND_TIMEOUT_USEC=5000000\nSTATUS=a b")
            #expect(try listener.receive(timeout: 50) == nil)
        }
    }

    @Test("RELOADING=1 carries MONOTONIC_USEC")
    func reloading() async throws {
        try await withTemporaryDirectory { directory in
            let listener = try NotifyListener(path: directory.appending("notify"))
            defer { listener.close() }
            try SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address]).reloading(status: "Reloading plugins")
            let lines = try #require(try listener.receive()).split(separator: "\n").map(String.init)
            #expect(lines.count == 3)
            #expect(lines.first == "RELOADING=1")
            let monotonic = try #require(lines.dropFirst().first)
            #expect(monotonic.hasPrefix("MONOTONIC_USEC="))
            #expect(UInt64(monotonic.dropFirst("MONOTONIC_USEC=".count)).map { $0 > 0 } == true)
            #expect(lines.last == "STATUS=Reloading plugins")
        }
    }

    @Test("an abstract socket, written @name, works")
    func abstractSocket() throws {
        let listener = try NotifyListener(abstractName: "restored-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { listener.close() }
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address])
        try notifier.ready(status: "Ready")
        #expect(try listener.receive() == "READY=1\nSTATUS=Ready")
    }

    @Test("without NOTIFY_SOCKET every call does nothing")
    func disabled() throws {
        for environment in [[:], ["NOTIFY_SOCKET": ""]] {
            let notifier = SystemdNotifier(environment: environment)
            #expect(!notifier.isEnabled)
            #expect(notifier.socketAddress == nil)
            try notifier.ready(status: "x")
            try notifier.status("x")
            try notifier.watchdog()
            try notifier.stopping(status: "x")
        }
    }

    @Test("a socket nobody listens on is a clear error")
    func missingSocket() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appending("nobody-listens")
            let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": path])
            let error = #expect(throws: SystemdNotifierError.self) { try notifier.ready() }
            #expect(error == .sendFailed(address: path, errno: ENOENT))
            let message = try #require(error?.description)
            #expect(message.contains(path))
            #expect(message.contains("ENOENT"))
            #expect(!message.contains("\n"))
        }
    }

    @Test("an address that is not a path nor @name is refused with what to do")
    func unsupportedAddress() {
        for address in ["relative/notify", "vsock:2:1234", "@"] {
            let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": address])
            #expect(throws: SystemdNotifierError.unsupportedAddress(address)) { try notifier.watchdog() }
        }
        let long = "/" + String(repeating: "x", count: 200)
        #expect(throws: SystemdNotifierError.addressTooLong(long)) {
            try SystemdNotifier(environment: ["NOTIFY_SOCKET": long]).watchdog()
        }
    }

    @Test("field names must be A-Z, 0-9 and _")
    func invalidFieldName() async throws {
        try await withTemporaryDirectory { directory in
            let listener = try NotifyListener(path: directory.appending("notify"))
            defer { listener.close() }
            let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address])
            for name in ["", "status", "A=B", "A\nB"] {
                #expect(throws: SystemdNotifierError.invalidFieldName(name)) {
                    try notifier.send([(name: name, value: "1")])
                }
            }
            #expect(try listener.receive(timeout: 50) == nil)
        }
    }

    @Test("runWatchdog sends WATCHDOG=1 at half of WATCHDOG_USEC until cancelled")
    func watchdogLoop() async throws {
        try await withTemporaryDirectory { directory in
            let listener = try NotifyListener(path: directory.appending("notify"))
            defer { listener.close() }
            let notifier = SystemdNotifier(environment: [
                "NOTIFY_SOCKET": listener.address, "WATCHDOG_USEC": "40000", "WATCHDOG_PID": "\(getpid())",
            ])
            #expect(notifier.watchdogInterval == .milliseconds(20))
            let loop = Task { try await notifier.runWatchdog() }
            for _ in 0..<3 {
                // A generous guard only: the interval itself is not asserted.
                #expect(try await listener.receiveOffPool(timeout: 30_000) == "WATCHDOG=1")
            }
            loop.cancel()
            try await loop.value
        }
    }

    @Test("A service manager that does not read its socket gets errors, never a hung daemon")
    func fullQueue() async throws {
        try await withTemporaryDirectory { directory in
            let listener = try NotifyListener(path: directory.appending("notify"))
            defer { listener.close() }
            let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.address])
            // A datagram socket queues a few messages (net.unix.max_dgram_qlen):
            // sending far more without reading must fail fast, not block.
            var refused = 0
            for _ in 0..<2_000 {
                do {
                    try notifier.watchdog()
                } catch {
                    refused += 1
                }
            }
            #expect(refused > 0)
        }
    }

    @Test("runWatchdog returns at once when the watchdog is off")
    func watchdogLoopDisabled() async throws {
        try await SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/notify"]).runWatchdog()
    }
}
