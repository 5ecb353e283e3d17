import Foundation

/// A process a test starts and must stop: spawned with posix_spawn, its
/// standard output read through a pipe, stopped and reaped by pid.
///
/// Unchecked Sendable: its mutable state changes only in ``stop()`` and
/// ``terminate(timeout:)``, which a test calls from one place at a time.
public final class ChildProcess: @unchecked Sendable {
    /// The child's process id.
    public let pid: Int32
    private let output: Int32
    private var reaped = false
    /// How the process ended, once stopped: its exit code, or nil after a signal.
    public private(set) var exitCode: Int32?
    /// The signal that ended it, if one did.
    public private(set) var terminationSignal: Int32?

    /// Starts `path` with `arguments` (and `environment`, or this process's);
    /// standard error goes to `log`.
    public init(_ path: String, _ arguments: [String], environment: [String: String]? = nil, log: String) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ChildProcessError("pipe failed: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { variables in variables.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { envp?.forEach { free($0) } }
        // The child starts with no signal blocked or ignored, as a service
        // manager starts programs: the test runner's threads block some, and
        // a child that inherits that would ignore stop()'s SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        var status: Int32 = 0
        // A program the test has just copied can be busy for a moment: a
        // child another test forked meanwhile holds the copy's descriptor
        // until it execs (ETXTBSY). Tried again for up to two seconds.
        for _ in 0 ..< 40 {
            status = envp.map { posix_spawn(&child, path, &actions, &attributes, argv, $0) } ?? posix_spawn(&child, path, &actions, &attributes, argv, environ)
            guard status == ETXTBSY else { break }
            usleep(50_000)
        }
        close(ends[1])
        guard status == 0 else {
            close(ends[0])
            throw ChildProcessError("cannot start \(path): \(String(cString: strerror(status)))")
        }
        pid = child
        output = ends[0]
    }

    deinit {
        stop()
        close(output)
    }

    /// The first line the process writes, waiting at most `timeout`.
    public func readLine(timeout: Duration = .seconds(10)) -> String? {
        var line = [UInt8]()
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) >= 0 else { return nil }
            guard descriptor.revents != 0 else { continue }
            var byte: UInt8 = 0
            guard read(output, &byte, 1) == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }

    /// Sends SIGTERM, then SIGKILL if it has not exited within two seconds, and reaps it.
    public func stop() {
        guard !reaped else { return }
        reaped = true
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(2)
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            usleep(10_000)
        }
        record(status)
    }

    /// Reads a wait status: the low seven bits are the signal, the next byte the exit code.
    private func record(_ status: Int32) {
        if status & 0x7F == 0 {
            exitCode = (status >> 8) & 0xFF
        } else {
            terminationSignal = status & 0x7F
        }
    }

    /// Waits (up to `timeout`, off the cooperative pool) for the process to
    /// exit by itself; returns its exit code, or nil if it had to be killed.
    public func exited(timeout: Duration = .seconds(30)) async -> Int32? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.wait(timeout: timeout)) }
        }
    }

    /// ``terminate(timeout:)`` on a dispatch thread, so an async test does
    /// not hold one of the few cooperative threads while the child exits.
    public func terminated(timeout: Duration = .seconds(30)) async -> Int32? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.terminate(timeout: timeout)) }
        }
    }

    /// Sends SIGTERM and waits (up to `timeout`) for the process to exit by
    /// itself; returns its exit code, or nil if it had to be killed.
    public func terminate(timeout: Duration = .seconds(30)) -> Int32? {
        guard !reaped else { return exitCode }
        kill(pid, SIGTERM)
        return wait(timeout: timeout)
    }

    /// Waits for the process to exit, killing it after `timeout`.
    private func wait(timeout: Duration) -> Int32? {
        guard !reaped else { return exitCode }
        let deadline = ContinuousClock.now + timeout
        var status: Int32 = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard ContinuousClock.now < deadline else {
                stop()
                return nil
            }
            usleep(20_000)
        }
        reaped = true
        record(status)
        return exitCode
    }
}

/// Why a child process could not start.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    public init(_ description: String) { self.description = description }
}
