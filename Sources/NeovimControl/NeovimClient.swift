public import MessagePack
public import SystemPackage

/// A connection to a running Neovim's RPC server (msgpack-rpc, `:help
/// rpc`): requests sent one at a time, each answered before `timeout`.
///
/// Notifications Neovim sends meanwhile are read and dropped.
public final class NeovimClient {
    private let socket: UnixStreamSocket
    private var received: [UInt8] = []
    private var nextID: UInt32 = 1
    /// How long each request may take.
    public let timeout: Duration

    /// Connects to the server at `socket`.
    public init(socket: FilePath, timeout: Duration = .seconds(2)) throws(NeovimError) {
        self.socket = try UnixStreamSocket(connectingTo: socket)
        self.timeout = timeout
    }

    /// Calls API function `method` with `arguments` and returns its result;
    /// an error Neovim answers is thrown with its message.
    public func call(_ method: String, _ arguments: [MessagePackValue] = []) throws(NeovimError) -> MessagePackValue {
        let id = nextID
        nextID &+= 1
        let deadline = ContinuousClock.now + timeout
        try socket.send(MessagePackWriter.encode([0, .uint(UInt64(id)), .string(method), .array(arguments)]), before: deadline)
        while true {
            let message = try nextMessage(before: deadline)
            guard let parts = message.arrayValue, let kind = parts.first?.intValue else {
                throw NeovimError("\(method): an answer that is no msgpack-rpc message")
            }
            // Notifications ([2, method, params]) are not for us.
            guard kind == 1 else { continue }
            guard parts.count == 4, parts[1].intValue == Int(id) else {
                throw NeovimError("\(method): an answer to another request")
            }
            if parts[2] != .nil {
                let text = parts[2].arrayValue?.last?.stringValue ?? "\(parts[2])"
                throw NeovimError("\(method): \(text)")
            }
            return parts[3]
        }
    }

    /// Runs `calls` in one round trip (`nvim_call_atomic`) and returns their
    /// results in order; the first that fails is thrown with its index.
    public func callAtomic(_ calls: [(method: String, arguments: [MessagePackValue])]) throws(NeovimError) -> [MessagePackValue] {
        guard !calls.isEmpty else { return [] }
        let answer = try call("nvim_call_atomic", [.array(calls.map { [.string($0.method), .array($0.arguments)] })])
        guard let parts = answer.arrayValue, parts.count == 2, let results = parts[0].arrayValue else {
            throw NeovimError("nvim_call_atomic: an answer of the wrong shape")
        }
        if let failure = parts[1].arrayValue, let index = failure.first?.intValue, calls.indices.contains(index) {
            throw NeovimError("\(calls[index].method): \(failure.last?.stringValue ?? "failed")")
        }
        guard results.count == calls.count else { throw NeovimError("nvim_call_atomic: \(results.count) results for \(calls.count) calls") }
        return results
    }

    private func nextMessage(before deadline: ContinuousClock.Instant) throws(NeovimError) -> MessagePackValue {
        while true {
            var reader = MessagePackReader(received)
            do {
                let value = try reader.read()
                received.removeFirst(reader.offset)
                return value
            } catch is MessagePackReader.Incomplete {
                let more = try socket.receive(before: deadline)
                guard !more.isEmpty else { throw NeovimError("Neovim closed the connection") }
                received += more
            } catch {
                throw NeovimError("Neovim sent bytes that are no MessagePack: \(error)")
            }
        }
    }
}
