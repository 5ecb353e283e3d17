import Logging
import RestoredArchive
import RestoredEngine

/// What the suites that walk plugins in this process share.
enum InProcessWalks {
    /// A logger for the suites: errors only, to standard error, so that
    /// what they print stays their tables.
    static func logger() -> Logger {
        var logger = Logger(label: "restored-bench") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = .error
        return logger
    }

    /// An engine for walks run in this process: its store is never used
    /// (the suites keep the archives they make), and no app budget refuses
    /// a synthetic app of any size.
    static func engine(logger: Logger) -> RestorationEngine {
        RestorationEngine(store: ArchiveStore(directory: "/nonexistent"), configuration: EngineConfiguration(appByteBudget: 1 << 30), logger: logger)
    }
}
