import Glibc

/// One event an inotify descriptor reports (`struct inotify_event`: the
/// watch, the mask, a cookie, the name's length, then the name, padded
/// with NULs).
struct InotifyEvent: Hashable, Sendable {
    /// The watch descriptor it is for.
    var watch: Int32
    /// What happened (`IN_CREATE`, `IN_DELETE`, `IN_IGNORED`, ...).
    var mask: UInt32
    /// The file's name in the watched directory ("" for an event of the
    /// watched file itself).
    var name: String

    /// Whether any of `flags` is in the mask.
    func has(_ flags: Int32) -> Bool { mask & UInt32(bitPattern: flags) != 0 }

    /// The events in `bytes`, as read from an inotify descriptor; a last
    /// event cut short is left out.
    static func parse(_ bytes: ArraySlice<UInt8>) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var offset = bytes.startIndex
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= bytes.endIndex {
            let field = { (at: Int) -> UInt32 in
                bytes[offset + at ..< offset + at + 4].enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * $1.offset) }
            }
            let length = Int(field(12))
            guard offset + header + length <= bytes.endIndex else { break }
            let name = String(decoding: bytes[offset + header ..< offset + header + length].prefix { $0 != 0 }, as: UTF8.self)
            events.append(InotifyEvent(watch: Int32(bitPattern: field(0)), mask: field(4), name: name))
            offset += header + length
        }
        return events
    }

    /// Reads every event queued on the non-blocking inotify `descriptor`.
    static func drain(_ descriptor: Int32) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { return events }
            events += parse(buffer[..<count])
        }
    }
}
