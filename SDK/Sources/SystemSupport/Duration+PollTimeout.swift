extension Duration {
    /// The duration as the timeout of `poll(2)` and of libdbus: whole
    /// milliseconds, rounded up so that a wait never ends before its
    /// deadline; 0 for a duration that is not positive; at most `Int32.max`.
    public var pollMilliseconds: Int32 {
        guard self > .zero else { return 0 }
        let (seconds, attoseconds) = components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return .max }
        let rest = attoseconds / perMillisecond + (attoseconds % perMillisecond == 0 ? 0 : 1)
        return Int32(clamping: milliseconds.partialValue.addingReportingOverflow(rest).partialValue)
    }
}
