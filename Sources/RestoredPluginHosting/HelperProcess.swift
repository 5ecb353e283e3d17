import CRestoredHostSupport
import RestoredLaunch
public import RestoredHostProtocol
public import SystemPackage
import Synchronization
import SystemSupport

/// One running `restored-plugin-host`: its pid, a pidfd that tells when it
/// exits, and restored's end of its channel.
///
/// The process is reaped exactly once, by whichever of ``reap(within:)`` or
/// ``reapIfExited()`` sees it exit first; the status is kept for the others.
/// ``kill()`` may be called from any thread, and after the process is gone.
public final class HelperProcess: Sendable {
    /// How a helper ended.
    public enum Ending: Hashable, Sendable {
        /// It exited with this status.
        case exited(Int32)
        /// It died of this signal.
        case signaled(Int32)
    }

    /// The helper's pid.
    public let pid: Int32
    /// restored's end of the channel.
    public let channel: FrameChannel
    private let socket: Int32
    private let pidfd: Int32
    private let state = Mutex<(ending: Ending?, closed: Bool)>((nil, false))

    /// Starts `executable` for `plugin`, with `environment`, as a child of this process.
    public static func spawn(executable: FilePath, plugin: FilePath, environment: [String: String]) throws(Errno) -> HelperProcess {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { throw Errno(rawValue: errno) }
        defer { close(ends[1]) }
        let arguments = [executable.string, "--parent", String(getpid()), plugin.string]
        let variables = environment.map { "\($0.key)=\($0.value)" }
        let channelEnd = ends[1]
        // On the thread that outlives every helper: their death signal follows it.
        let (error, pid) = SpawnerThread.shared.run { () -> (Int32, pid_t) in
            var pid: pid_t = 0
            let error = ProgramRun.withCStrings(arguments) { argv in
                ProgramRun.withCStrings(variables) { envp in
                    c_restored_spawn_helper(executable.string, argv, envp, channelEnd, &pid)
                }
            }
            return (error, pid)
        }
        guard error == 0 else {
            close(ends[0])
            throw Errno(rawValue: error)
        }
        let pidfd = c_restored_pidfd_open(pid)
        guard pidfd >= 0 else {
            let failure = errno
            Glibc.kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            close(ends[0])
            throw Errno(rawValue: failure)
        }
        return HelperProcess(pid: pid, socket: ends[0], pidfd: pidfd)
    }

    private init(pid: pid_t, socket: Int32, pidfd: Int32) {
        self.pid = pid
        self.socket = socket
        self.pidfd = pidfd
        self.channel = FrameChannel(descriptor: socket, exitDescriptor: pidfd)
    }

    deinit {
        closeDescriptors()
    }

    /// Sends SIGKILL, unless it is already reaped.
    public func kill() {
        state.withLock { state in
            if state.ending == nil { _ = Glibc.kill(pid, SIGKILL) }
        }
    }

    /// How it ended, if it was reaped.
    public var ending: Ending? { state.withLock { $0.ending } }

    /// Reaps it if it has exited, without waiting.
    @discardableResult
    public func reapIfExited() -> Ending? {
        state.withLock { state in
            if state.ending == nil { state.ending = Self.waitNoHang(pid) }
            return state.ending
        }
    }

    /// Waits up to `timeout` for it to exit, then kills it; returns how it ended.
    @discardableResult
    public func reap(within timeout: Duration) -> Ending {
        if let ending = reapIfExited() { return ending }
        var descriptor = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        while poll(&descriptor, 1, timeout.pollMilliseconds) < 0 && errno == EINTR {}
        if let ending = reapIfExited() { return ending }
        kill()
        return state.withLock { state in
            if let ending = state.ending { return ending }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let ending = Self.ending(of: status)
            state.ending = ending
            return ending
        }
    }

    /// Closes restored's end of the channel: the helper reads the end of
    /// its requests and exits.
    public func closeChannel() {
        state.withLock { state in
            if !state.closed { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    private func closeDescriptors() {
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            close(socket)
            close(pidfd)
        }
    }

    private static func waitNoHang(_ pid: pid_t) -> Ending? {
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, WNOHANG) } while result < 0 && errno == EINTR
        return result == pid ? ending(of: status) : nil
    }

    private static func ending(of status: Int32) -> Ending {
        // WIFEXITED / WTERMSIG, which Swift does not import as macros.
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }
}

#if canImport(Glibc)
import Glibc
#endif
