import FoundationEssentials
import SystemPackage
import UnixSocket
public import SystemSupport

/// A connection to a local X server, speaking the core protocol's few
/// requests a session needs: atoms, properties, geometry, coordinates and
/// client messages (which EWMH window managers obey). Requests are sent one
/// at a time and each reply is read before the next; events are skipped.
///
/// It is written against the protocol itself (X Window System Protocol,
/// version 11), in little-endian byte order, so restored needs no X library.
public final class X11Connection {
    private var socket: UnixStreamSocket
    private var sequence: UInt16 = 0
    /// How long each request may take.
    public let timeout: Duration
    /// The root window of the first screen.
    public let root: UInt32
    private var atoms: [String: UInt32] = [:]
    /// RandR's major opcode when the server has RandR 1.5, asked once
    /// (``monitors()``): nil until asked, `.some(nil)` without it.
    var randrOpcode: UInt8??

    /// Connects to `display`, with the cookie of `authorityFile` when it has one.
    public init(display: X11Display, authorityFile: String?, timeout: Duration = .seconds(5)) throws(X11Error) {
        do {
            socket = try UnixStreamSocket(connectingTo: FilePath(display.socketPath))
        } catch {
            throw .unreachable(display: display.number, error)
        }
        self.timeout = timeout
        let cookie = authorityFile.flatMap { display.cookie(authorityFile: $0) }
        let name = cookie == nil ? [] : Array("MIT-MAGIC-COOKIE-1".utf8)
        var setup: [UInt8] = [0x6C, 0]
        Self.append16(11, to: &setup)
        Self.append16(0, to: &setup)
        Self.append16(UInt16(name.count), to: &setup)
        Self.append16(UInt16(cookie?.count ?? 0), to: &setup)
        setup += [0, 0]
        setup += Self.padded(name) + Self.padded(cookie ?? [])
        let deadline = ContinuousClock.now + timeout
        do {
            try socket.send(setup, before: deadline)
        } catch {
            throw .socket(error)
        }
        let header = try Self.read(8, from: &socket, before: deadline)
        let length = Int(Self.value16(header, at: 6)) * 4
        let body = try Self.read(length, from: &socket, before: deadline)
        guard header[0] == 1 else {
            let reason = String(decoding: body.prefix(Int(header[1])), as: UTF8.self)
            throw .refused(reason.isEmpty ? "authentication" : reason)
        }
        // After 32 bytes of fixed fields: the vendor (padded), the formats (8 bytes each), then the screens.
        guard body.count >= 32 else { throw .malformedSetup("is too short") }
        let vendorLength = Int(Self.value16(body, at: 16))
        let formats = Int(body[21])
        let screens = 32 + (vendorLength + 3) / 4 * 4 + 8 * formats
        guard body[20] > 0, screens + 4 <= body.count else { throw .malformedSetup("names no screen") }
        root = Self.value32(body, at: screens)
    }

    /// Holds the connection until the X server closes it (true: the
    /// display is gone) or `wake` is signalled (false). Events the server
    /// sends meanwhile are dropped.
    public func waitUntilClosed(interruptedBy wake: WakeSignal) -> Bool {
        socket.waitUntilClosed(interruptedBy: wake)
    }

    // MARK: Requests

    /// The atom named `name`, made if it does not exist yet (`InternAtom`).
    public func atom(_ name: String) throws(X11Error) -> UInt32 {
        if let known = atoms[name] { return known }
        let bytes = Array(name.utf8)
        var request: [UInt8] = []
        Self.append16(UInt16(bytes.count), to: &request)
        request += [0, 0] + Self.padded(bytes)
        let reply = try call(opcode: 16, data: 0, body: request)
        let atom = Self.value32(reply, at: 8)
        atoms[name] = atom
        return atom
    }

    /// A window property's 32-bit values (`GetProperty`, any type); empty
    /// when the window has no such property.
    public func property32(_ name: String, of window: UInt32) throws(X11Error) -> [UInt32] {
        let reply = try property(name, of: window)
        guard reply[1] == 32 else { return [] }
        let count = Int(Self.value32(reply, at: 16))
        guard reply.count >= 32 + 4 * count else { throw .shortReply(request: "GetProperty \(name)") }
        return (0 ..< count).map { Self.value32(reply, at: 32 + 4 * $0) }
    }

    /// A window property's 8-bit value as UTF-8 text (`GetProperty`, any
    /// type, like i3's `I3_SOCKET_PATH`); nil when the window has no such
    /// property or it is not 8-bit.
    public func propertyText(_ name: String, of window: UInt32) throws(X11Error) -> String? {
        let reply = try property(name, of: window)
        guard reply[1] == 8 else { return nil }
        let count = Int(Self.value32(reply, at: 16))
        guard reply.count >= 32 + count else { throw .shortReply(request: "GetProperty \(name)") }
        return String(decoding: reply[32 ..< 32 + count], as: UTF8.self)
    }

    /// The reply of `GetProperty` for `name` (any type, up to 256 KiB).
    private func property(_ name: String, of window: UInt32) throws(X11Error) -> [UInt8] {
        var request: [UInt8] = []
        Self.append32(window, to: &request)
        Self.append32(try atom(name), to: &request)
        Self.append32(0, to: &request)
        Self.append32(0, to: &request)
        Self.append32(1 << 16, to: &request)
        return try call(opcode: 20, data: 0, body: request)
    }

    /// A window's size (`GetGeometry`).
    public func size(of window: UInt32) throws(X11Error) -> (width: Int, height: Int) {
        var request: [UInt8] = []
        Self.append32(window, to: &request)
        let reply = try call(opcode: 14, data: 0, body: request)
        return (Int(Self.value16(reply, at: 16)), Int(Self.value16(reply, at: 18)))
    }

    /// Where a window's top-left corner is on the root window (`TranslateCoordinates`).
    public func position(of window: UInt32) throws(X11Error) -> (x: Int, y: Int) {
        var request: [UInt8] = []
        Self.append32(window, to: &request)
        Self.append32(root, to: &request)
        request += [0, 0, 0, 0]
        let reply = try call(opcode: 40, data: 0, body: request)
        return (Int(Int16(bitPattern: Self.value16(reply, at: 12))), Int(Int16(bitPattern: Self.value16(reply, at: 14))))
    }

    /// Sends the root window a client message about `window` (`SendEvent`
    /// with SubstructureRedirect and SubstructureNotify, as EWMH asks), then
    /// waits until the server has handled it.
    public func sendClientMessage(_ type: String, about window: UInt32, data: [UInt32]) throws(X11Error) {
        var event: [UInt8] = [33, 32, 0, 0]
        Self.append32(window, to: &event)
        Self.append32(try atom(type), to: &event)
        for index in 0 ..< 5 { Self.append32(index < data.count ? data[index] : 0, to: &event) }
        var request: [UInt8] = []
        Self.append32(root, to: &request)
        Self.append32((1 << 19) | (1 << 20), to: &request)
        request += event
        try send(opcode: 25, data: 0, body: request)
        // A round trip: the event was handled before the answer comes.
        _ = try call(opcode: 43, data: 0, body: [])
    }

    // MARK: Protocol

    private func send(opcode: UInt8, data: UInt8, body: [UInt8]) throws(X11Error) {
        var request: [UInt8] = [opcode, data]
        Self.append16(UInt16((4 + body.count) / 4), to: &request)
        request += body
        sequence &+= 1
        do {
            try socket.send(request, before: ContinuousClock.now + timeout)
        } catch {
            throw .socket(error)
        }
    }

    /// Sends a request and returns its reply, events skipped.
    func call(opcode: UInt8, data: UInt8, body: [UInt8]) throws(X11Error) -> [UInt8] {
        try send(opcode: opcode, data: data, body: body)
        let deadline = ContinuousClock.now + timeout
        while true {
            var message = try Self.read(32, from: &socket, before: deadline)
            let number = Self.value16(message, at: 2)
            switch message[0] {
            case 0:
                guard number == sequence else { continue }
                throw .requestFailed(opcode: opcode, code: message[1])
            case 1:
                let extra = Int(Self.value32(message, at: 4)) * 4
                if extra > 0 { message += try Self.read(extra, from: &socket, before: deadline) }
                guard number == sequence else { continue }
                return message
            default:
                continue
            }
        }
    }

    /// The next `count` bytes from the server.
    private static func read(_ count: Int, from socket: inout UnixStreamSocket, before deadline: ContinuousClock.Instant) throws(X11Error) -> [UInt8] {
        do {
            return try socket.read(exactly: count, before: deadline)
        } catch .closed {
            throw .closed
        } catch .tooLarge {
            throw .oversized(count)
        } catch {
            throw .socket(error)
        }
    }

    static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
    }

    static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes += [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    static func append32(_ value: UInt32, to bytes: inout [UInt8]) {
        bytes += (0 ..< 4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    static func value16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    static func value32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        (0 ..< 4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
}
