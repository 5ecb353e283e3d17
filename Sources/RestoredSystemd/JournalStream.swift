// Whether standard error is the journal: JOURNAL_STREAM against fstat(2).

public import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The stream systemd connected a service's standard output or error to, as
/// `JOURNAL_STREAM=<device>:<inode>` names it (systemd.exec(5)).
///
/// A process whose standard error is still that stream (same device and
/// inode, per fstat(2)) should log through journald's native protocol, which
/// keeps structured fields; one whose standard error was redirected
/// elsewhere should keep writing lines there.
public struct JournalStream: Sendable, Hashable {
    /// The device number of the stream's socket (`st_dev`).
    public let device: UInt64
    /// The inode number of the stream's socket (`st_ino`).
    public let inode: UInt64

    /// Creates a stream identity from its device and inode numbers.
    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// Parses a `JOURNAL_STREAM` value, `<device>:<inode>` in decimal; nil if malformed.
    public init?(environmentValue: String) {
        let parts = environmentValue.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2,
            parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
            let device = UInt64(parts[0]), let inode = UInt64(parts[1])
        else { return nil }
        self.init(device: device, inode: inode)
    }

    /// The identity of what `fileDescriptor` refers to, from fstat(2); nil if it is not open.
    public init?(fileDescriptor: Int32) {
        var status = stat()
        guard fstat(fileDescriptor, &status) == 0 else { return nil }
        self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
    }

    /// Whether `fileDescriptor` (by default standard error) is the stream
    /// that `JOURNAL_STREAM` in `environment` names.
    ///
    /// False when `JOURNAL_STREAM` is unset or malformed, or the descriptor is
    /// closed or refers to something else.
    public static func isConnected(
        fileDescriptor: Int32 = 2,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> Bool {
        guard let value = environment["JOURNAL_STREAM"],
            let expected = JournalStream(environmentValue: value),
            let actual = JournalStream(fileDescriptor: fileDescriptor)
        else { return false }
        return expected == actual
    }
}
