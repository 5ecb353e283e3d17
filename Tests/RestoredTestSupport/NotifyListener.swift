// The service manager's end of NOTIFY_SOCKET, played by a test.

import Foundation
import SystemSupport

#if canImport(Glibc)
import Glibc
#endif

/// A bound `AF_UNIX` datagram socket that receives what a notifier sends,
/// like the service manager's notify socket. Built independently of the
/// module's own address code, so the two check each other.
public final class NotifyListener {
    /// The value to put in `NOTIFY_SOCKET`: the path, or `@name` for an abstract socket.
    /// The NOTIFY_SOCKET value that reaches this listener.
    public let address: String
    private var descriptor: Int32

    /// Binds a socket at a filesystem path.
    /// Listens at a filesystem path.
    public convenience init(path: String) throws {
        try self.init(address: path, pathBytes: Array(path.utf8) + [0])
    }

    /// Binds a socket in the abstract namespace (`@name` in `NOTIFY_SOCKET`).
    /// Listens at an abstract socket name.
    public convenience init(abstractName name: String) throws {
        try self.init(address: "@" + name, pathBytes: [0] + Array(name.utf8))
    }

    private init(address: String, pathBytes: [UInt8]) throws {
        self.address = address
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw NotifyListenerError("socket: \(String(cString: strerror(errno)))") }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: pathBytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathBytes.count)
        let result = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard result == 0 else {
            let message = String(cString: strerror(errno))
            close()
            throw NotifyListenerError("bind \(address): \(message)")
        }
    }

    deinit { close() }

    /// Closes the socket (a filesystem path stays until its directory is removed).
    /// Closes the socket.
    public func close() {
        if descriptor >= 0 {
            _ = Glibc.close(descriptor)
            descriptor = -1
        }
    }

    /// The next datagram as text, waiting at most `timeout` milliseconds; nil if none came.
    /// ``receive(timeout:)`` on a dispatch thread, so an async test does not
    /// hold one of the few cooperative threads while it waits.
    public func receiveOffPool(timeout: Int32 = 5_000) async throws -> String? {
        let descriptor = self.descriptor
        let result: Result<String?, any Error> = await OffPool.run { Result { try Self.receive(from: descriptor, timeout: timeout) } }
        return try result.get()
    }

    /// The next datagram, or nil after `timeout` milliseconds.
    public func receive(timeout: Int32 = 5_000) throws -> String? {
        try Self.receive(from: descriptor, timeout: timeout)
    }

    private static func receive(from descriptor: Int32, timeout: Int32) throws -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeout)
        guard ready >= 0 else { throw NotifyListenerError("poll: \(String(cString: strerror(errno)))") }
        guard ready == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count >= 0 else { throw NotifyListenerError("recv: \(String(cString: strerror(errno)))") }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}

/// Why the test's notify socket failed.
public struct NotifyListenerError: Error, CustomStringConvertible {
    /// What failed.
    public let description: String
    /// Creates an error.
    public init(_ description: String) { self.description = description }
}
