/// Limits and facts the walks use.
public struct EngineConfiguration: Sendable {
    /// The most bytes one object's state may take (R13). Default 1 MiB.
    public var objectByteBudget: Int
    /// The most bytes one app's states may take together (R13). Default 64 MiB.
    public var appByteBudget: Int
    /// The system version recorded in archives (`restored.systemVersion`).
    public var systemVersion: String

    /// The defaults: generous for references-to-data state (R14), small
    /// enough that a runaway plugin cannot fill the disk.
    public init(objectByteBudget: Int = 1 << 20, appByteBudget: Int = 64 << 20, systemVersion: String = EngineConfiguration.currentSystemVersion) {
        self.objectByteBudget = objectByteBudget
        self.appByteBudget = appByteBudget
        self.systemVersion = systemVersion
    }

    /// `restored 0.1 (Linux <release>)`.
    public static var currentSystemVersion: String {
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "restored \(RestoredVersion.string) (Linux \(release))"
    }
}

/// The version of restored.
public enum RestoredVersion {
    /// The version string, read from the running image's runtime record
    /// (`RESTORED_VERSION` in `restored/runtime_record.h`, its one place).
    public static let string = RuntimeRecord.current.version ?? "unknown"
}

#if canImport(Glibc)
import Glibc
#endif
