import FoundationEssentials
import Glibc
import ProcessSpawning
public import SystemPackage
import SystemSupport

/// A private session bus: a `dbus-daemon` of its own, for restored's tests
/// and for `restored-plugin-test`'s runs alike, so that nothing of the
/// user's session bus (a running restored, its name, its archives) is
/// touched.
///
/// It listens on `bus` in its directory (with `bus.conf` and `bus.log`
/// beside it), lets every client own any name and see every message, and
/// is ended by pid (``stop()``, or when it is dropped). Only the services
/// of ``Options/activationDirectory`` are started by D-Bus activation:
/// without one, a call to a name nobody owns fails instead of starting
/// anything.
public final class PrivateBusDaemon: Sendable {
    /// How the bus is set up.
    public struct Options: Sendable {
        /// Where `.service` files for D-Bus activation are read; nil for
        /// no activation at all.
        public var activationDirectory: String?
        /// Whether other users may connect (a test that checks restored
        /// refuses them itself); only the bus's own user otherwise.
        public var allowsOtherUsers: Bool
        /// The `dbus-daemon` to run.
        public var dbusDaemon: FilePath
        /// Its environment, which the services it activates start with
        /// (plus what `UpdateActivationEnvironment` adds).
        public var environment: [String: String]

        /// A bus for the caller's user alone, with no activation, whose
        /// daemon gets only a `PATH`.
        public init(
            activationDirectory: String? = nil, allowsOtherUsers: Bool = false, dbusDaemon: FilePath = "/usr/bin/dbus-daemon",
            environment: [String: String] = ["PATH": "/usr/bin:/bin"]
        ) {
            self.activationDirectory = activationDirectory
            self.allowsOtherUsers = allowsOtherUsers
            self.dbusDaemon = dbusDaemon
            self.environment = environment
        }
    }

    /// Its address, as `dbus-daemon` printed it.
    public let address: String
    /// Its directory: the socket `bus`, `bus.conf` and `bus.log`.
    public let directory: String
    private let process: ChildProcess

    private init(address: String, directory: String, process: ChildProcess) {
        self.address = address
        self.directory = directory
        self.process = process
    }

    deinit { stop() }

    /// Starts a bus in `directory` (which must exist) and waits, off the
    /// cooperative pool and at most 10 s, for the address it prints once
    /// it listens.
    public static func start(in directory: String, options: Options = Options()) async throws(PrivateBusError) -> PrivateBusDaemon {
        guard access(options.dbusDaemon.string, X_OK) == 0 else {
            throw PrivateBusError("\(options.dbusDaemon) cannot be run: install the Debian package dbus-daemon")
        }
        let configuration = directory + "/bus.conf"
        try write(text(directory: directory, options: options), to: configuration)
        let log = try create(directory + "/bus.log")
        defer { try? log.close() }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw PrivateBusError("cannot make a pipe (\(Errno(rawValue: errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (reader, writer) = (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
        defer { try? reader.close() }
        let process: ChildProcess
        do {
            defer { try? writer.close() }
            process = try ChildProcess.spawn(
                options.dbusDaemon, arguments: ["dbus-daemon", "--config-file=\(configuration)", "--nofork", "--print-address=1"],
                environment: options.environment,
                options: SpawnOptions(input: .null, output: .descriptor(writer), errors: .descriptor(log), ownProcessGroup: true)
            )
        } catch {
            throw PrivateBusError("cannot run \(options.dbusDaemon) (\(error))")
        }
        let line = await OffPool.run { firstLine(from: reader, until: .now + .seconds(10)) }
        guard let line, !line.isEmpty else {
            let ending = process.reap(within: .zero)
            let logged = (try? String(contentsOfFile: directory + "/bus.log", encoding: .utf8))?.split(separator: "\n").last.map(String.init)
            throw PrivateBusError(logged ?? "it printed no address (\(ending))")
        }
        return PrivateBusDaemon(address: line, directory: directory, process: process)
    }

    /// Ends the bus (SIGTERM, SIGKILL after 2 s) and reaps it; again does nothing.
    public func stop() {
        guard process.ending == nil else { return }
        _ = kill(process.pid, SIGTERM)
        process.reap(within: .seconds(2))
    }

    /// The configuration of a bus in `directory`.
    static func text(directory: String, options: Options) -> String {
        let services = options.activationDirectory.map { "  <servicedir>\(escaped($0))</servicedir>\n" } ?? ""
        let users = options.allowsOtherUsers ? "    <allow user=\"*\"/>\n" : ""
        return """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(escaped(directory + "/bus"))</listen>
            \(services)  <auth>EXTERNAL</auth>
              <policy context="default">
            \(users)    <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>

            """
    }

    /// `text` as XML text.
    private static func escaped(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }

    private static func create(_ path: String) throws(PrivateBusError) -> FileDescriptor {
        do {
            return try FileDescriptor.open(FilePath(path), .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: .ownerReadWrite)
        } catch {
            throw PrivateBusError("cannot write \(path) (\(error))")
        }
    }

    private static func write(_ text: String, to path: String) throws(PrivateBusError) {
        let descriptor = try create(path)
        defer { try? descriptor.close() }
        do {
            _ = try descriptor.writeAll(Array(text.utf8))
        } catch {
            throw PrivateBusError("cannot write \(path) (\(error))")
        }
    }

    /// The first line read from `descriptor` before `deadline`, or nil.
    private static func firstLine(from descriptor: FileDescriptor, until deadline: ContinuousClock.Instant) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) { return String(decoding: bytes[..<newline], as: UTF8.self) }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            var poller = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, left.pollMilliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor.rawValue, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            bytes += buffer[..<count]
        }
    }
}

/// Why a private bus could not start: one line, saying what to do where it can.
public struct PrivateBusError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public let description: String

    init(_ description: String) { self.description = description }
}
