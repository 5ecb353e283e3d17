import Foundation
import Glibc
import ProcessSpawning
import SystemPackage
import SystemSupport

/// The run's own session bus: a `dbus-daemon` that only the run's restored,
/// its plugin and the commands of `--start`, `--end` and `--check` use, so
/// that nothing of the user's running restored (its name, its archives) is
/// touched.
///
/// It has no activatable services: a call to a name nobody owns fails
/// instead of starting the user's own restored (whose activation file
/// names their archives) or anything else on it. It listens on `bus` in
/// the run's directory, logs to `bus.log`, and is ended by pid.
final class PrivateBus: Sendable {
    /// Its address, as `dbus-daemon` printed it.
    let address: String
    private let process: ChildProcess

    private init(address: String, process: ChildProcess) {
        self.address = address
        self.process = process
    }

    /// Starts `dbusDaemon` in `directory` and waits (at most 10 s) for the
    /// address it prints once it listens.
    static func start(dbusDaemon: String, in directory: RunDirectory) async throws(PluginTestError) -> PrivateBus {
        let configuration = directory.file("bus.conf")
        let text = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(Self.escaped(directory.file("bus")))</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>

            """
        try write(text, to: configuration)
        let log = try RunDirectory.createFile(directory.file("bus.log"))
        defer { try? log.close() }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .system(call: "pipe", Errno(rawValue: errno)) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (reader, writer) = (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
        defer { try? reader.close() }
        let process: ChildProcess
        do {
            defer { try? writer.close() }
            process = try ChildProcess.spawn(
                FilePath(dbusDaemon), arguments: ["dbus-daemon", "--config-file=\(configuration)", "--nofork", "--print-address=1"],
                environment: ["PATH": "/usr/bin:/bin"],
                options: SpawnOptions(input: .null, output: .descriptor(writer), errors: .descriptor(log), ownProcessGroup: true)
            )
        } catch {
            throw .busDidNotStart(reason: "cannot run \(dbusDaemon) (\(error))")
        }
        let line = await OffPool.run { Self.firstLine(from: reader, until: .now + .seconds(10)) }
        guard let line, !line.isEmpty else {
            let ending = process.reap(within: .zero)
            let said = RunDirectory.tail(of: directory.file("bus.log"), lines: 1)?.first ?? "it printed no address (\(ending))"
            throw .busDidNotStart(reason: said)
        }
        return PrivateBus(address: line, process: process)
    }

    /// Ends the bus (SIGTERM, SIGKILL after 2 s) and reaps it.
    func stop() {
        _ = kill(process.pid, SIGTERM)
        process.reap(within: .seconds(2))
    }

    /// `path` as XML text.
    private static func escaped(_ path: String) -> String {
        path.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    private static func write(_ text: String, to path: String) throws(PluginTestError) {
        let descriptor = try RunDirectory.createFile(path)
        defer { try? descriptor.close() }
        do {
            _ = try descriptor.writeAll(Array(text.utf8))
        } catch {
            throw .system(call: "write \(path)", (error as? Errno) ?? Errno(rawValue: EIO))
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
