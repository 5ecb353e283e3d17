public import MessagePack
public import SystemPackage
import UnixSocket

/// A connection to a running Neovim's RPC server (msgpack-rpc, `:help
/// rpc`): requests sent one at a time, each answered before `timeout` and
/// before ``deadline``.
///
/// Notifications Neovim sends meanwhile are read and dropped. After a
/// timeout or bytes that are no msgpack-rpc, the connection is broken:
/// every later call fails at once (so no late answer is ever read as
/// another request's), and a Neovim that stopped answering costs one
/// timeout, not one per call.
public final class NeovimClient {
    private var socket: UnixStreamSocket
    private var framer = MessagePackFramer()
    private var nextID: Int64 = 1
    private var broken: NeovimError?
    /// How long each request may take.
    public let timeout: Duration
    /// When every request must have been answered, whatever ``timeout`` leaves.
    public var deadline: ContinuousClock.Instant?
    /// The largest message read: a peer announcing more is broken, not buffered.
    public static let maximumMessageSize = 16 << 20

    /// Connects to the server at `socket`.
    public init(socket: FilePath, timeout: Duration = .seconds(2)) throws(NeovimError) {
        do {
            self.socket = try UnixStreamSocket(connectingTo: socket, bufferLimit: Self.maximumMessageSize)
        } catch {
            throw .socket(error)
        }
        self.timeout = timeout
    }

    /// Calls API function `method` with `arguments` and returns its result;
    /// an error Neovim answers is thrown with its message.
    public func call(_ method: String, _ arguments: [MessagePackValue] = []) throws(NeovimError) -> MessagePackValue {
        if let broken { throw broken }
        let id = nextID
        nextID += 1
        var deadline = ContinuousClock.now + timeout
        if let overall = self.deadline, overall < deadline { deadline = overall }
        let answer: Result<MessagePackValue, NeovimError>
        do {
            answer = try exchange(method, arguments, id: id, before: deadline)
        } catch {
            broken = .connectionGivenUp(error)
            throw error
        }
        // An error Neovim answered leaves the connection good.
        return try answer.get()
    }

    /// Sends request `id` and reads until its answer: Neovim's result or
    /// the error it answered. Thrown: what breaks the connection.
    private func exchange(
        _ method: String, _ arguments: [MessagePackValue], id: Int64, before deadline: ContinuousClock.Instant
    ) throws(NeovimError) -> Result<MessagePackValue, NeovimError> {
        do {
            try socket.send(MessagePackWriter.encode([0, .int(id), .string(method), .array(arguments)]), before: deadline)
        } catch {
            throw .socket(error)
        }
        while true {
            let message = try nextMessage(before: deadline)
            guard let parts = message.arrayValue, let kind = parts.first?.intValue else {
                throw .protocolViolation(method: method, "an answer that is no msgpack-rpc message")
            }
            // Notifications ([2, method, params]) are not for us.
            guard kind == 1 else { continue }
            guard parts.count == 4, let answered = parts[1].intValue else {
                throw .protocolViolation(method: method, "an answer of the wrong shape")
            }
            guard answered == id else { throw .protocolViolation(method: method, "an answer to a request never sent") }
            if parts[2] != .nil {
                let text = parts[2].arrayValue?.last?.stringValue ?? "\(parts[2])"
                return .failure(.answered(method: method, message: text))
            }
            return .success(parts[3])
        }
    }

    /// Runs `calls` in one round trip and returns their results in order;
    /// the first that fails is thrown with its method. The calls run in
    /// one Lua chunk (`nvim_exec_lua`, Neovim 0.5 and later), each through
    /// `vim.api`: `nvim_call_atomic` does the same but is deprecated since
    /// Neovim 0.10. Handles (buffers, windows, tab pages) come back as
    /// integers, which every API call takes.
    public func callAtomic(_ calls: [(method: String, arguments: [MessagePackValue])]) throws(NeovimError) -> [MessagePackValue] {
        guard !calls.isEmpty else { return [] }
        let answer = try call("nvim_exec_lua", [.string(Self.atomicCalls), .array([.array(calls.map { [.string($0.method), .array($0.arguments)] })])])
        guard let parts = answer.arrayValue, parts.count == 2 else {
            throw .protocolViolation(method: "nvim_exec_lua", "an answer of the wrong shape")
        }
        if let failure = parts[1].arrayValue, let index = failure.first?.intValue, calls.indices.contains(index) {
            throw .answered(method: calls[index].method, message: failure.last?.stringValue ?? "failed")
        }
        guard let results = parts[0].arrayValue else {
            throw .protocolViolation(method: "nvim_exec_lua", "an answer of the wrong shape")
        }
        guard results.count == calls.count else { throw .protocolViolation(method: "nvim_exec_lua", "\(results.count) results for \(calls.count) calls") }
        return results
    }

    /// The Lua chunk of ``callAtomic(_:)``: runs each `{method, arguments}`
    /// through `vim.api`, stops at the first failure, and answers `{results,
    /// nil}` or `{results so far, {index from 0, message}}`, a nil result
    /// kept in its place as `vim.NIL`. Only the names of `vim.api` functions
    /// are called; what the calls carry is data.
    static let atomicCalls = """
        local calls = ...
        local results = {}
        local unpacked = table.unpack or unpack
        for index, call in ipairs(calls) do
          local method = vim.api[call[1]]
          if type(method) ~= 'function' then
            return { results, { index - 1, 'no API function ' .. tostring(call[1]) } }
          end
          local ok, result = pcall(method, unpacked(call[2]))
          if not ok then
            return { results, { index - 1, tostring(result) } }
          end
          if result == nil then result = vim.NIL end
          results[index] = result
        end
        return { results, vim.NIL }
        """

    /// The next whole message, scanned as its bytes arrive and decoded once.
    private func nextMessage(before deadline: ContinuousClock.Instant) throws(NeovimError) -> MessagePackValue {
        while true {
            let end: Int?
            do {
                end = try framer.endOfFirstValue(in: socket.buffered, limit: Self.maximumMessageSize)
            } catch .lengthTooLarge {
                throw .messageTooLarge(limit: Self.maximumMessageSize)
            } catch {
                throw .notMessagePack(error)
            }
            if let end {
                var reader = MessagePackReader(Array(socket.buffered.prefix(end)))
                socket.take(end)
                do {
                    return try reader.read()
                } catch {
                    throw .notMessagePack(error)
                }
            }
            do {
                try socket.receiveMore(before: deadline)
            } catch .closed {
                throw .closed
            } catch .tooLarge {
                throw .messageTooLarge(limit: Self.maximumMessageSize)
            } catch {
                throw .socket(error)
            }
        }
    }
}
