public import Foundation

/// The times of the admin API and of archives, as dates.
public enum Timestamps {
    /// Microseconds since 1970 (the admin API), or nil for 0 (never).
    public static func date(microseconds: Int64) -> Date? {
        microseconds == 0 ? nil : Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }

    /// Nanoseconds since 1970 (an archive's timestamp), or nil for 0 (unknown).
    public static func date(nanoseconds: Int64) -> Date? {
        nanoseconds == 0 ? nil : Date(timeIntervalSince1970: Double(nanoseconds) / 1_000_000_000)
    }
}
