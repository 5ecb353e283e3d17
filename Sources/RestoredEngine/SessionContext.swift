internal import CRestoredPlugin
import Logging
import RestoredArchive

/// The host side of one plugin instance (`restored_host_context`): the
/// plugin's log, its last error message, and the archive flags it set.
final class SessionContext {
    let appID: AppID
    let logger: Logger
    var lastError: String?
    var phase: SessionPhase = .idle
    var ignoreSnapshotRequested = false
    /// When the walk under way must be over (its host is stopped then); nil
    /// for none.
    var walkDeadline: ContinuousClock.Instant?

    /// The milliseconds left in the walk, for `walk_time_left`.
    var walkTimeLeft: UInt64 {
        guard phase != .idle, let walkDeadline else { return .max }
        let left = ContinuousClock.now.duration(to: walkDeadline)
        guard left > .zero else { return 0 }
        return UInt64(left.components.seconds) * 1000 + UInt64(left.components.attoseconds / 1_000_000_000_000_000)
    }

    init(appID: AppID, logger: Logger) {
        self.appID = appID
        self.logger = logger
    }

    var cPointer: OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(self).toOpaque())
    }

    static func from(_ pointer: OpaquePointer?) -> SessionContext? {
        guard let pointer else { return nil }
        return Unmanaged<SessionContext>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    func log(_ level: restored_log_level, _ message: String) {
        let logLevel: Logger.Level = switch level {
        case RESTORED_LOG_ERROR: .error
        case RESTORED_LOG_WARNING: .warning
        case RESTORED_LOG_NOTICE: .notice
        case RESTORED_LOG_INFO: .info
        default: .debug
        }
        logger.log(level: logLevel, "\(message)", metadata: ["app": "\(appID)"])
    }

    func setFlag(_ flag: UInt32, on: Bool) -> restored_status {
        guard case .preserving = phase else { return RESTORED_ERROR_WRONG_PHASE }
        switch flag {
        case RESTORED_FLAG_IGNORE_SNAPSHOT_ON_NEXT_LAUNCH.rawValue:
            ignoreSnapshotRequested = on
            return RESTORED_OK
        default:
            return RESTORED_ERROR_INVALID_ARGUMENT
        }
    }
}
