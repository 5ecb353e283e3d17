// A swift-log backend for a systemd service: the journal, or prefixed lines on stderr.

public import FoundationEssentials
public import Logging

import CSystemd

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A swift-log handler for a program run as a systemd service.
///
/// When standard error is the journal stream systemd gave the service
/// (``JournalStream``), messages go through journald's native protocol
/// (sd_journal_sendv(3)) with structured fields: `MESSAGE`, `PRIORITY`,
/// `SYSLOG_IDENTIFIER`, `CODE_FILE`, `CODE_LINE`, `CODE_FUNC`, `LOGGER` (the
/// logger's label) and one upper-cased field per metadata key, so
/// `journalctl --user -u restored APP=org.example.Notes` finds one app's
/// messages. Otherwise each message is one line on standard error: an
/// sd-daemon(3) priority prefix such as `<6>`, the message, and the metadata
/// as ` key=value` pairs sorted by key. There is no timestamp: journald and
/// terminals add their own.
///
/// Each message is written with a single write(2), so messages from several
/// threads do not interleave within a line.
public struct SystemdLogHandler: LogHandler {
    /// Where a ``SystemdLogHandler`` writes.
    public enum Destination: Sendable, Hashable {
        /// journald's native protocol; if the journal refuses a message, it
        /// is written as a line to standard error instead.
        case journal
        /// One line per message on this file descriptor, which the handler
        /// neither owns nor closes.
        case fileDescriptor(Int32)

        /// One line per message on standard error.
        public static let standardError = Destination.fileDescriptor(2)

        /// ``journal`` when standard error is the journal stream named by
        /// `JOURNAL_STREAM` in `environment`, else ``standardError``.
        public static func automatic(
            environment: [String: String] = ProcessInfo.processInfo.environment
        ) -> Destination {
            JournalStream.isConnected(fileDescriptor: 2, environment: environment) ? .journal : .standardError
        }
    }

    /// The label of the logger this handler serves, sent as the `LOGGER` journal field.
    public let label: String
    /// Where messages go.
    public let destination: Destination
    /// The `SYSLOG_IDENTIFIER` journal field, the name `journalctl -t` filters on.
    public let syslogIdentifier: String
    /// The least severe level that is written.
    public var logLevel: Logger.Level
    /// Metadata added to every message; a message's own metadata wins.
    public var metadata: Logger.Metadata
    /// Contextual metadata, such as task-local values, added to every message.
    public var metadataProvider: Logger.MetadataProvider?

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - label: the logger's label.
    ///   - destination: where messages go; by default the journal when
    ///     standard error is connected to it, else standard error.
    ///   - syslogIdentifier: the `SYSLOG_IDENTIFIER` journal field.
    ///   - logLevel: the least severe level written.
    ///   - metadata: metadata added to every message.
    ///   - metadataProvider: contextual metadata added to every message.
    public init(
        label: String,
        destination: Destination = .automatic(),
        syslogIdentifier: String = "restored",
        logLevel: Logger.Level = .info,
        metadata: Logger.Metadata = [:],
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        self.label = label
        self.destination = destination
        self.syslogIdentifier = syslogIdentifier
        self.logLevel = logLevel
        self.metadata = metadata
        self.metadataProvider = metadataProvider
    }

    /// Gets or sets one metadata value added to every message.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one message to the destination.
    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() {
            merged.merge(provided) { _, new in new }
        }
        if let own = event.metadata {
            merged.merge(own) { _, new in new }
        }
        if let error = event.error, merged["error"] == nil {
            merged["error"] = .string(String(describing: error))
        }
        let record = SystemdLogRecord(
            level: event.level,
            message: event.message.description,
            metadata: merged,
            file: event.file,
            function: event.function,
            line: event.line
        )
        switch destination {
        case .journal:
            if !Self.sendToJournal(record.journalFields(syslogIdentifier: syslogIdentifier, label: label)) {
                Self.writeLine(record.standardErrorLine(), to: 2)
            }
        case .fileDescriptor(let descriptor):
            Self.writeLine(record.standardErrorLine(), to: descriptor)
        }
    }

    // MARK: - Factories

    /// A factory for `LoggingSystem.bootstrap(_:)` or `Logger(label:factory:)`
    /// that makes handlers with these settings.
    ///
    /// - Parameters:
    ///   - destination: where messages go; by default decided once, now, from
    ///     the process environment.
    ///   - syslogIdentifier: the `SYSLOG_IDENTIFIER` journal field.
    ///   - logLevel: the least severe level written.
    public static func factory(
        destination: Destination = .automatic(),
        syslogIdentifier: String = "restored",
        logLevel: Logger.Level = .info
    ) -> @Sendable (String) -> any LogHandler {
        { label in
            SystemdLogHandler(
                label: label, destination: destination, syslogIdentifier: syslogIdentifier, logLevel: logLevel
            )
        }
    }

    /// Makes every `Logger` in the process use a ``SystemdLogHandler``.
    ///
    /// Call once, early in `main`: swift-log allows one bootstrap per process.
    ///
    /// - Parameters:
    ///   - logLevel: the least severe level written.
    ///   - syslogIdentifier: the `SYSLOG_IDENTIFIER` journal field.
    ///   - environment: where to read `JOURNAL_STREAM`.
    ///   - metadataProvider: contextual metadata added to every message.
    public static func bootstrap(
        logLevel: Logger.Level = .info,
        syslogIdentifier: String = "restored",
        environment: [String: String] = ProcessInfo.processInfo.environment,
        metadataProvider: Logger.MetadataProvider? = nil
    ) {
        let destination = Destination.automatic(environment: environment)
        LoggingSystem.bootstrap(
            { label, provider in
                SystemdLogHandler(
                    label: label,
                    destination: destination,
                    syslogIdentifier: syslogIdentifier,
                    logLevel: logLevel,
                    metadataProvider: provider
                )
            },
            metadataProvider: metadataProvider
        )
    }

    // MARK: - Output

    /// Sends fields to journald; false if it refused them (no journal, say).
    static func sendToJournal(_ fields: [String]) -> Bool {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(fields.count)
        for field in fields {
            let start = bytes.count
            bytes.append(contentsOf: field.utf8)
            ranges.append(start..<bytes.count)
        }
        return bytes.withUnsafeMutableBytes { buffer in
            let vectors = ranges.map { range in
                iovec(iov_base: buffer.baseAddress! + range.lowerBound, iov_len: range.count)
            }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) } >= 0
        }
    }

    /// Writes `line` with one write(2), retrying on EINTR and after a short
    /// write. Errors are dropped: there is nowhere left to report them.
    static func writeLine(_ line: String, to descriptor: Int32) {
        var line = line
        line.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
