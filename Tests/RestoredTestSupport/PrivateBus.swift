public import Foundation
public import RestoredDBus
import RestoredTesting

/// A private `dbus-daemon` for one test (``PrivateBusDaemon``, the bus
/// `restored-plugin-test` runs too), in a directory of its own that goes
/// with it: stopped by pid and removed when the test drops it. Services a
/// test writes into ``servicesDirectory`` are started by D-Bus activation,
/// with the test process's environment (as a desktop's bus hands its own
/// to what it activates); other users may connect, so tests can check that
/// restored refuses them itself.
public final class PrivateBus: Sendable {
    /// The bus address.
    public let address: String
    /// The directory of its socket and log.
    public let directory: URL
    private let daemon: PrivateBusDaemon

    /// Where `.service` files for D-Bus activation go.
    public var servicesDirectory: URL { directory.appendingPathComponent("services") }

    private init(directory: URL, daemon: PrivateBusDaemon) {
        self.directory = directory
        self.daemon = daemon
        address = daemon.address
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts a bus in a new directory; waiting for its address does not
    /// hold one of the few cooperative threads.
    public static func start() async throws -> PrivateBus {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("restored-bus-\(UUID().uuidString)")
        let services = directory.appendingPathComponent("services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        do {
            let daemon = try await PrivateBusDaemon.start(
                in: directory.path, options: PrivateBusDaemon.Options(
                    activationDirectory: services.path, allowsOtherUsers: true, environment: ProcessInfo.processInfo.environment
                )
            )
            return PrivateBus(directory: directory, daemon: daemon)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    /// Stops the daemon (the test's buses go away with it).
    public func stop() {
        daemon.stop()
    }

    /// A connection to the bus.
    public func connect() async throws -> DBusConnection {
        try await DBusConnection.connect(to: .address(address))
    }
}
