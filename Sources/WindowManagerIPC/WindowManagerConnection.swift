import FoundationEssentials
public import SystemPackage
import UnixSocket
public import SystemSupport
import X11Client

/// A connection to the IPC socket of sway or i3: requests answered in
/// order, each before the connection's deadline for it, and the events of
/// a subscription. Used from one thread at a time.
///
/// After a request fails (no answer in time, bytes of another protocol),
/// the connection is broken: a late answer would otherwise be taken for
/// the next request's, so every later request fails at once.
public final class WindowManagerConnection {
    private var socket: UnixStreamSocket
    private var broken: WindowManagerIPCError?
    /// How long one request may take.
    public let timeout: Duration

    /// The socket of the running sway or i3: `SWAYSOCK`, `I3SOCK`, or (with
    /// `readingRootWindow`: it takes a connection to the X server) the
    /// `I3_SOCKET_PATH` property i3 puts on the root window of `DISPLAY`.
    public static func socket(environment: [String: String], readingRootWindow: Bool = true) -> FilePath? {
        for name in ["SWAYSOCK", "I3SOCK"] {
            if let path = environment[name], path.hasPrefix("/") { return FilePath(path) }
        }
        guard readingRootWindow, let display = X11Display(environment: environment),
              let connection = try? X11Connection(display: display, authorityFile: X11Display.authorityFile(environment: environment)),
              let path = (try? connection.propertyText("I3_SOCKET_PATH", of: connection.root)) ?? nil, path.hasPrefix("/")
        else { return nil }
        return FilePath(path)
    }

    /// Connects to the IPC socket at `path`; each request then takes at most `timeout`.
    public init(socket path: FilePath, timeout: Duration = .seconds(1)) throws(WindowManagerIPCError) {
        do {
            socket = try UnixStreamSocket(connectingTo: path, bufferLimit: WindowManagerIPC.headerSize + WindowManagerIPC.maximumPayload)
        } catch {
            throw .socket(error)
        }
        self.timeout = timeout
    }

    /// Sends a request of `type` and returns its reply's payload; events
    /// that come before it are dropped.
    public func request(_ type: UInt32, payload: [UInt8] = []) throws(WindowManagerIPCError) -> [UInt8] {
        if let broken { throw broken }
        do {
            return try exchange(type, payload: payload)
        } catch {
            broken = error
            throw error
        }
    }

    private func exchange(_ type: UInt32, payload: [UInt8]) throws(WindowManagerIPCError) -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        do {
            try socket.send(WindowManagerIPC.Message(type: type, payload: payload).bytes, before: deadline)
        } catch {
            throw .socket(error)
        }
        while true {
            let message = try nextMessage(before: deadline)
            // Events have the high bit set; replies carry their request's type.
            if message.type == type { return message.payload }
        }
    }

    /// The next whole message, waiting until `deadline` for its bytes, or
    /// until `wake` is signalled (``WindowManagerIPCError/socket(_:)`` with
    /// ``UnixSocketError/interrupted``).
    public func nextMessage(before deadline: ContinuousClock.Instant, interruptedBy wake: WakeSignal? = nil) throws(WindowManagerIPCError) -> WindowManagerIPC.Message {
        while true {
            if let (message, length) = try WindowManagerIPC.firstMessage(in: socket.buffered) {
                socket.take(length)
                return message
            }
            do {
                try socket.receiveMore(before: deadline, interruptedBy: wake)
            } catch .closed {
                throw .closed
            } catch .timedOut {
                throw .timedOut
            } catch {
                throw .socket(error)
            }
        }
    }

    /// Runs `command` (one command, or several separated by `;`) and
    /// throws the first error the window manager answers.
    public func run(_ command: String) throws(WindowManagerIPCError) {
        let reply = try request(WindowManagerIPC.runCommand, payload: Array(command.utf8))
        struct Outcome: Decodable {
            var success: Bool
            var error: String?
        }
        guard let outcomes = try? JSONDecoder().decode([Outcome].self, from: Data(reply)) else {
            throw .unreadableReply("no command outcomes: \(String(decoding: reply.prefix(200), as: UTF8.self))")
        }
        if let failed = outcomes.first(where: { !$0.success }) { throw .commandFailed(failed.error ?? "no reason given") }
    }

    /// Whether the window manager is sway (its `GET_VERSION` says
    /// `variant: sway`), not i3.
    public func isSway() throws(WindowManagerIPCError) -> Bool {
        struct Version: Decodable { var variant: String? }
        let reply = try request(WindowManagerIPC.getVersion)
        return (try? JSONDecoder().decode(Version.self, from: Data(reply)))?.variant == "sway"
    }

    /// The window manager's outputs, active or not.
    public func outputs() throws(WindowManagerIPCError) -> [WindowManagerOutput] {
        let reply = try request(WindowManagerIPC.getOutputs)
        do {
            return try JSONDecoder().decode([WindowManagerOutput].self, from: Data(reply))
        } catch {
            throw .unreadableReply("outputs that cannot be read (\(error))")
        }
    }

    /// The window manager's tree of outputs, workspaces and windows.
    public func tree() throws(WindowManagerIPCError) -> WindowTree {
        let reply = try request(WindowManagerIPC.getTree)
        do {
            return try WindowTree(json: reply)
        } catch {
            throw .unreadableReply("a tree that cannot be read (\(error))")
        }
    }
}
