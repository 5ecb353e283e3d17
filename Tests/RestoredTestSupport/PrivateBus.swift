public import Foundation
public import RestoredDBus

/// A private `dbus-daemon` for one test, stopped by pid (and its socket
/// directory removed) when the test ends. Services a test writes into
/// ``servicesDirectory`` are started by D-Bus activation.
public final class PrivateBus {
    /// The bus address.
    public let address: String
    /// The directory of its socket and log.
    public let directory: URL
    private let process: ChildProcess

    /// Where `.service` files for D-Bus activation go.
    public var servicesDirectory: URL { directory.appendingPathComponent("services") }

    /// Makes a bus.
    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("restored-bus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("services"), withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:dir=\(directory.path)</listen>
              <servicedir>\(directory.path)/services</servicedir>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <!-- Other users may connect, so tests can check that restored refuses them itself. -->
                <allow user="*"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") else {
            throw PrivateBusError("dbus-daemon is missing: install the Debian package dbus-daemon (scripts/setup does)")
        }
        process = try ChildProcess(
            "/usr/bin/dbus-daemon", ["--config-file=\(config.path)", "--nofork", "--print-address=1"],
            log: directory.appendingPathComponent("dbus-daemon.log").path
        )
        guard let line = process.readLine(), !line.isEmpty else {
            process.stop()
            throw PrivateBusError("dbus-daemon printed no address; see \(directory.path)/dbus-daemon.log")
        }
        address = line
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the daemon (the test's buses go away with it).
    public func stop() {
        process.stop()
    }

    /// Starts a bus on a dispatch thread: starting waits for the daemon's
    /// address, which must not hold one of the few cooperative threads.
    public static func start() async throws -> PrivateBus {
        let result: Result<PrivateBus, any Error> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: Result { try PrivateBus() }) }
        }
        return try result.get()
    }

    public func connect() async throws -> DBusConnection {
        try await DBusConnection.connect(to: .address(address))
    }
}

/// Why a private bus could not start.
public struct PrivateBusError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    init(_ description: String) { self.description = description }
}
