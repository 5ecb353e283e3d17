internal import CRestoredPlugin
public import RestoredState

/// What the host gives one plugin instance: its options, logging, the
/// registry of existing objects, and archive flags.
public final class PluginContext {
    /// Severity of a log message.
    public enum LogLevel: Sendable {
        /// Something failed.
        case error
        /// Something looks wrong.
        case warning
        /// Worth knowing.
        case notice
        /// Routine.
        case info
        /// For debugging.
        case debug

        var cLevel: restored_log_level {
            switch self {
            case .error: RESTORED_LOG_ERROR
            case .warning: RESTORED_LOG_WARNING
            case .notice: RESTORED_LOG_NOTICE
            case .info: RESTORED_LOG_INFO
            case .debug: RESTORED_LOG_DEBUG
            }
        }
    }

    /// The app's configuration from the host (for example where its live state is).
    public let options: [String: String]

    let host: UnsafePointer<restored_host_functions>
    let hostContext: OpaquePointer
    var registeredObjects = RegisteredObjects()

    init(host: UnsafePointer<restored_host_functions>, hostContext: OpaquePointer, options: [String: String]) {
        self.host = host
        self.hostContext = hostContext
        self.options = options
    }

    /// Logs a message, attributed to this app by the host.
    public func log(_ message: String, level: LogLevel = .info) {
        var message = message
        message.withUTF8 { utf8 in host.pointee.log(hostContext, level.cLevel, StateCoder.cString(utf8)) }
    }

    /// During a preservation, why it runs; nil otherwise, or when the host
    /// predates occasions. At ``SaveOccasion/sessionEnd`` and
    /// ``SaveOccasion/shutdown`` the app may be dying around the save: a
    /// plugin that finds it gone declines, and restored keeps the last
    /// archive.
    public var saveOccasion: SaveOccasion? {
        guard hostCovers(\.save_occasion), let function = host.pointee.save_occasion else { return nil }
        return SaveOccasion(rawValue: function(hostContext))
    }

    /// During a restoration, why it runs; nil otherwise, or when the host
    /// predates reasons.
    public var restoreReason: RestoreReason? {
        guard hostCovers(\.restore_reason), let function = host.pointee.restore_reason else { return nil }
        return RestoreReason(rawValue: function(hostContext))
    }

    /// During a save or a restore, the time left before restored stops this
    /// plugin's host: bound every wait for the app by it (a socket, a
    /// window, a launched program). nil outside a walk, when the walk has no
    /// deadline, or when the host predates it.
    public var timeLeftInWalk: Duration? {
        guard hostCovers(\.walk_time_left), let function = host.pointee.walk_time_left else { return nil }
        let milliseconds = function(hostContext)
        guard milliseconds != .max else { return nil }
        return .milliseconds(Int64(clamping: milliseconds))
    }

    /// When the walk under way must be over, on the continuous clock
    /// (``timeLeftInWalk`` from now); nil as there.
    public var walkDeadline: ContinuousClock.Instant? {
        timeLeftInWalk.map { ContinuousClock.now + $0 }
    }

    /// Whether the host's table is long enough to hold `field`.
    func hostCovers<Field>(_ field: KeyPath<restored_host_functions, Field>) -> Bool {
        guard let offset = MemoryLayout<restored_host_functions>.offset(of: field) else { return false }
        return Int(host.pointee.struct_size) >= offset + MemoryLayout<Field>.size
    }

    /// Registers an object that already exists (built with the app's default
    /// UI) under `path`, so restoration can find it (R8 step 3).
    public func registerObject(_ object: any RestorableObject, at path: RestorationPath) {
        registeredObjects[path] = object
    }

    /// Forgets the object registered under `path`.
    public func unregisterObject(at path: RestorationPath) {
        registeredObjects[path] = nil
    }

    /// Asks the next restoration not to show this archive's snapshot (R12).
    /// Allowed only during preservation.
    public func ignoreSnapshotOnNextLaunch() throws {
        let status = host.pointee.set_archive_flag(hostContext, RESTORED_FLAG_IGNORE_SNAPSHOT_ON_NEXT_LAUNCH.rawValue, true)
        guard status == RESTORED_OK else { throw StateCoder.error(status, key: "ignore-snapshot flag") }
    }
}
