import CRestoredProcess
#if canImport(Glibc)
import Glibc
#endif
public import SystemPackage
import Synchronization
import SystemSupport

/// A child process restored waits for: its pid and a pidfd that becomes
/// readable when it exits, started by the one `posix_spawn` set-up every
/// such child shares (``spawn(_:arguments:environment:options:)``).
///
/// It is reaped exactly once, by whichever of ``reap(within:)`` or
/// ``reapIfExited()`` sees it exit first; the ending is kept for the others.
/// ``kill()`` may be called from any thread, also after it is gone: a
/// reaped pid is never signalled, since the kernel may have given it to
/// another process.
public final class ChildProcess: Sendable {
    /// The child's pid.
    public let pid: Int32
    /// Readable once the child has exited (a pidfd), for `poll` beside other descriptors.
    public let exitDescriptor: FileDescriptor
    private let state = Mutex<ProcessEnding?>(nil)

    /// Starts `executable` (an absolute path) with `arguments` (its name
    /// first), `environment` and `options`. Throws the `errno` of what
    /// failed, the exec itself included.
    public static func spawn(
        _ executable: FilePath, arguments: [String], environment: [String: String], options: SpawnOptions = SpawnOptions()
    ) throws(Errno) -> ChildProcess {
        var settings = c_restored_process_spawn_options()
        settings.standard_streams = (number(of: options.input), number(of: options.output), number(of: options.errors))
        settings.channel = options.channel?.rawValue ?? -1
        settings.own_process_group = options.ownProcessGroup ? 1 : 0
        var pid: pid_t = 0
        let error = CStringArray.with(arguments) { argv in
            CStringArray.with(CStringArray.variables(environment)) { envp in
                c_restored_process_spawn(executable.string, argv, envp, &settings, &pid)
            }
        }
        guard error == 0 else { throw Errno(rawValue: error) }
        let pidfd = c_restored_process_pidfd_open(pid)
        guard pidfd >= 0 else {
            let failure = Errno(rawValue: errno)
            _ = Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            throw failure
        }
        return ChildProcess(pid: pid, exitDescriptor: FileDescriptor(rawValue: pidfd))
    }

    private static func number(of stream: SpawnOptions.Stream) -> Int32 {
        switch stream {
        case .inherit: C_RESTORED_PROCESS_INHERIT
        case .null: C_RESTORED_PROCESS_DEV_NULL
        case .descriptor(let descriptor): descriptor.rawValue
        }
    }

    private init(pid: pid_t, exitDescriptor: FileDescriptor) {
        self.pid = pid
        self.exitDescriptor = exitDescriptor
    }

    /// A child dropped before it was reaped is killed and reaped: no zombie stays.
    deinit {
        if ending == nil { reap(within: .zero) }
        try? exitDescriptor.close()
    }

    /// Sends SIGKILL, unless it is already reaped.
    public func kill() {
        state.withLock { ending in
            if ending == nil { _ = Glibc.kill(pid, SIGKILL) }
        }
    }

    /// How it ended, if it was reaped.
    public var ending: ProcessEnding? { state.withLock { $0 } }

    /// Reaps it if it has exited, without waiting.
    @discardableResult
    public func reapIfExited() -> ProcessEnding? {
        state.withLock { ending in
            if ending == nil { ending = Self.waitNoHang(pid) }
            return ending
        }
    }

    /// Waits until `deadline` for it to exit; nil if it has not.
    public func wait(until deadline: ContinuousClock.Instant) -> ProcessEnding? {
        while true {
            if let ending = reapIfExited() { return ending }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            var descriptor = pollfd(fd: exitDescriptor.rawValue, events: Int16(POLLIN), revents: 0)
            if poll(&descriptor, 1, left.pollMilliseconds) < 0 && errno != EINTR { return reapIfExited() }
        }
    }

    /// Waits up to `timeout` for it to exit, then kills it; returns how it ended.
    @discardableResult
    public func reap(within timeout: Duration) -> ProcessEnding {
        if let ending = wait(until: .now + timeout) { return ending }
        kill()
        return state.withLock { ending in
            if let ending { return ending }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let reaped = ProcessEnding(waitStatus: status)
            ending = reaped
            return reaped
        }
    }

    private static func waitNoHang(_ pid: pid_t) -> ProcessEnding? {
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, WNOHANG) } while result < 0 && errno == EINTR
        return result == pid ? ProcessEnding(waitStatus: status) : nil
    }
}
