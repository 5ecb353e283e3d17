extension X11Connection {
    /// The active monitors (RandR 1.5's `RRGetMonitors`), in the server's
    /// order; empty when the server has no RandR 1.5 (the whole screen is
    /// then one monitor to its clients).
    public func monitors() throws(X11Error) -> [X11Monitor] {
        guard let major = try randr15Opcode() else { return [] }
        // RRGetMonitors of the root window, active ones only.
        var request: [UInt8] = []
        Self.append32(root, to: &request)
        request += [1, 0, 0, 0]
        let reply = try call(opcode: major, data: 42, body: request)
        let count = Int(Self.value32(reply, at: 12))
        var monitors: [X11Monitor] = []
        var offset = 32
        for _ in 0 ..< count {
            guard offset + 24 <= reply.count else { throw .shortReply(request: "RRGetMonitors") }
            let outputs = Int(Self.value16(reply, at: offset + 6))
            monitors.append(X11Monitor(
                name: try atomName(Self.value32(reply, at: offset)),
                primary: reply[offset + 4] != 0,
                x: Int(Int16(bitPattern: Self.value16(reply, at: offset + 8))), y: Int(Int16(bitPattern: Self.value16(reply, at: offset + 10))),
                width: Int(Self.value16(reply, at: offset + 12)), height: Int(Self.value16(reply, at: offset + 14))
            ))
            offset += 24 + 4 * outputs
        }
        return monitors
    }

    /// RandR's major opcode when the server has RandR 1.5 (`QueryExtension`,
    /// then `RRQueryVersion`, which a client must send first), asked once.
    private func randr15Opcode() throws(X11Error) -> UInt8? {
        if let known = randrOpcode { return known }
        let name = Array("RANDR".utf8)
        var query: [UInt8] = []
        Self.append16(UInt16(name.count), to: &query)
        query += [0, 0] + Self.padded(name)
        let extensionReply = try call(opcode: 98, data: 0, body: query)
        var opcode: UInt8?
        if extensionReply[8] == 1 {
            var version: [UInt8] = []
            Self.append32(1, to: &version)
            Self.append32(5, to: &version)
            let versionReply = try call(opcode: extensionReply[9], data: 0, body: version)
            let (major, minor) = (Self.value32(versionReply, at: 8), Self.value32(versionReply, at: 12))
            if major > 1 || (major == 1 && minor >= 5) { opcode = extensionReply[9] }
        }
        randrOpcode = .some(opcode)
        return opcode
    }

    /// The name of `atom` (`GetAtomName`).
    public func atomName(_ atom: UInt32) throws(X11Error) -> String {
        var request: [UInt8] = []
        Self.append32(atom, to: &request)
        let reply = try call(opcode: 17, data: 0, body: request)
        let length = Int(Self.value16(reply, at: 8))
        guard reply.count >= 32 + length else { throw .shortReply(request: "GetAtomName") }
        return String(decoding: reply[32 ..< 32 + length], as: UTF8.self)
    }
}
