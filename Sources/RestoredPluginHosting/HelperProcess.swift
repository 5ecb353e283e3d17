import Glibc
public import ProcessSpawning
public import RestoredHostProtocol
public import SystemPackage
import Synchronization
import SystemSupport

/// One running `restored-plugin-host`: its process (a ``ChildProcess``,
/// reaped once through its pidfd) and restored's end of its channel.
public final class HelperProcess: Sendable {
    /// How a helper ended.
    public typealias Ending = ProcessEnding

    /// The helper's pid.
    public var pid: Int32 { process.pid }
    /// restored's end of the channel.
    public let channel: FrameChannel
    private let process: ChildProcess
    private let socket: Int32
    private let closed = Mutex(false)

    /// Starts `executable` for `plugin`, with `environment`, as a child of
    /// this process: the channel as descriptor 3, no other descriptor of
    /// restored, in a process group of its own (a Ctrl-C meant for the
    /// daemon does not reach its helpers before the daemon's last save).
    public static func spawn(executable: FilePath, plugin: FilePath, environment: [String: String]) throws(Errno) -> HelperProcess {
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else { throw Errno(rawValue: errno) }
        defer { close(ends[1]) }
        let arguments = [executable.string, "--parent", String(getpid()), plugin.string]
        let options = SpawnOptions(channel: FileDescriptor(rawValue: ends[1]), ownProcessGroup: true)
        // On the thread that outlives every helper: their death signal follows it.
        let spawned = SpawnerThread.shared.run { () -> Result<ChildProcess, Errno> in
            Result { () throws(Errno) -> ChildProcess in
                try ChildProcess.spawn(executable, arguments: arguments, environment: environment, options: options)
            }
        }
        switch spawned {
        case .success(let process):
            return HelperProcess(process: process, socket: ends[0])
        case .failure(let error):
            close(ends[0])
            throw error
        }
    }

    private init(process: ChildProcess, socket: Int32) {
        self.process = process
        self.socket = socket
        self.channel = FrameChannel(descriptor: socket, exitDescriptor: process.exitDescriptor.rawValue)
    }

    deinit {
        closed.withLock { closed in
            if !closed { close(socket) }
            closed = true
        }
    }

    /// Sends SIGKILL, unless it is already reaped.
    public func kill() { process.kill() }

    /// How it ended, if it was reaped.
    public var ending: Ending? { process.ending }

    /// Reaps it if it has exited, without waiting.
    @discardableResult
    public func reapIfExited() -> Ending? { process.reapIfExited() }

    /// Waits up to `timeout` for it to exit, then kills it; returns how it ended.
    @discardableResult
    public func reap(within timeout: Duration) -> Ending { process.reap(within: timeout) }

    /// Closes restored's end of the channel: the helper reads the end of
    /// its requests and exits.
    public func closeChannel() {
        closed.withLock { closed in
            if !closed { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }
}
