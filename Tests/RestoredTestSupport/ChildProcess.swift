import Foundation
import ProcessSpawning
import SystemPackage
import SystemSupport

/// A process a test starts and must stop: spawned through ProcessSpawning
/// (the one `posix_spawn` set-up of restored: no signal blocked or
/// ignored, no descriptor of the test's but the ones named), its standard
/// output read through a pipe, standard error to a log file, stopped and
/// reaped by pid.
///
/// Unchecked Sendable: its mutable state changes only in ``stop()`` and
/// ``terminate(timeout:)``, which a test calls from one place at a time.
public final class ChildProcess: @unchecked Sendable {
    /// The child's process id.
    public var pid: Int32 { child.pid }
    private let child: ProcessSpawning.ChildProcess
    private let output: FileDescriptor
    /// How the process ended, once stopped: its exit code, or nil after a signal.
    public private(set) var exitCode: Int32?
    /// The signal that ended it, if one did.
    public private(set) var terminationSignal: Int32?

    /// Starts `path` with `arguments` (and `environment`, or this process's);
    /// standard error goes to `log`.
    public init(_ path: String, _ arguments: [String], environment: [String: String]? = nil, log: String) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ChildProcessError("pipe failed: \(String(cString: strerror(errno)))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (reader, writer) = (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
        defer { try? writer.close() }
        let errors: FileDescriptor
        do {
            errors = try FileDescriptor.open(FilePath(log), .writeOnly, options: [.create, .truncate, .closeOnExec], permissions: .ownerReadWrite)
        } catch {
            try? reader.close()
            throw ChildProcessError("cannot open \(log): \(error)")
        }
        defer { try? errors.close() }
        let variables = environment ?? ProcessInfo.processInfo.environment
        var started: ProcessSpawning.ChildProcess?
        var failure = Errno.noSuchFileOrDirectory
        // A program the test has just copied can be busy for a moment: a
        // child another test forked meanwhile holds the copy's descriptor
        // until it execs (ETXTBSY). Tried again for up to two seconds.
        for _ in 0 ..< 40 {
            do {
                started = try ProcessSpawning.ChildProcess.spawn(
                    FilePath(path), arguments: [path] + arguments, environment: variables,
                    options: SpawnOptions(input: .inherit, output: .descriptor(writer), errors: .descriptor(errors))
                )
                break
            } catch {
                failure = error
                guard error == .textFileBusy else { break }
                usleep(50_000)
            }
        }
        guard let started else {
            try? reader.close()
            throw ChildProcessError("cannot start \(path): \(failure)")
        }
        child = started
        output = reader
    }

    deinit {
        stop()
        try? output.close()
    }

    /// The first line the process writes, waiting at most `timeout`.
    public func readLine(timeout: Duration = .seconds(10)) -> String? {
        var line = [UInt8]()
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: output.rawValue, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) >= 0 else { return nil }
            guard descriptor.revents != 0 else { continue }
            var byte: UInt8 = 0
            guard read(output.rawValue, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }

    /// Sends SIGTERM, then SIGKILL if it has not exited within two seconds, and reaps it.
    public func stop() {
        guard child.ending == nil else { return }
        kill(child.pid, SIGTERM)
        record(child.reap(within: .seconds(2)))
    }

    /// Keeps how it ended.
    private func record(_ ending: ProcessEnding) {
        switch ending {
        case .exited(let code): exitCode = code
        case .signaled(let signal): terminationSignal = signal
        }
    }

    /// Waits (up to `timeout`, off the cooperative pool) for the process to
    /// exit by itself; returns its exit code, or nil if it had to be killed.
    public func exited(timeout: Duration = .seconds(30)) async -> Int32? {
        await OffPool.run { self.wait(timeout: timeout) }
    }

    /// ``terminate(timeout:)`` on a dispatch thread, so an async test does
    /// not hold one of the few cooperative threads while the child exits.
    public func terminated(timeout: Duration = .seconds(30)) async -> Int32? {
        await OffPool.run { self.terminate(timeout: timeout) }
    }

    /// Sends SIGTERM and waits (up to `timeout`) for the process to exit by
    /// itself; returns its exit code, or nil if it had to be killed.
    public func terminate(timeout: Duration = .seconds(30)) -> Int32? {
        guard child.ending == nil else { return exitCode }
        kill(child.pid, SIGTERM)
        return wait(timeout: timeout)
    }

    /// Waits for the process to exit, killing it after `timeout`.
    private func wait(timeout: Duration) -> Int32? {
        guard child.ending == nil else { return exitCode }
        guard let ending = child.wait(until: .now + timeout) else {
            stop()
            return nil
        }
        record(ending)
        return exitCode
    }
}

/// Why a child process could not start.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    public init(_ description: String) { self.description = description }
}
