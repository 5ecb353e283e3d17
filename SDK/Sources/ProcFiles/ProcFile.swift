import SystemPackage

/// Reads the files of `/proc`, which report a size of 0 and are made as
/// they are read: they are read to their end, one read at a time.
/// (Foundation's `String(contentsOfFile:)` reads one page of them: a
/// `/proc/net/unix` of a busy machine is cut after 4 KiB.)
public enum ProcFile {
    /// The whole file at `path`; nil when it cannot be opened or read.
    public static func contents(atPath path: String) -> [UInt8]? {
        guard let descriptor = try? FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec]) else { return nil }
        defer { try? descriptor.close() }
        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            guard let count = try? buffer.withUnsafeMutableBytes({ try descriptor.read(into: $0, retryOnInterrupt: true) }) else { return nil }
            if count == 0 { return contents }
            contents += buffer[..<count]
        }
    }

    /// The whole file at `path` as text (bytes that are not UTF-8 repaired).
    public static func text(atPath path: String) -> String? {
        contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }
}
